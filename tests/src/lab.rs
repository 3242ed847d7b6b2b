//! Starting the whole lab (every server, the workshop's routes and the
//! page) on a random port, as the test's own teacher, over a test database.

use std::path::Path;

use crate::Backend;

/// The teacher's token of every test lab.
pub const TEACHER_TOKEN: &str = "the-test-teachers-token";

/// Starts the whole lab (both servers and the page) on a random port;
/// returns its base URL, e.g. `http://127.0.0.1:40123`.
pub async fn spawn_lab(backend: Backend, ui_dir: &Path) -> String {
    let application = build_lab(backend, ui_dir).await;
    let base = format!("http://{}", application.local_addr());
    tokio::spawn(application.run_until(std::future::pending()));
    base
}

/// Like [`spawn_lab`], over the database at `database_url`.
pub async fn spawn_lab_on(database_url: String, ui_dir: &Path) -> String {
    serve(launcher::Settings {
        storage: over(database_url),
        ..lab_settings(ui_dir, Default::default(), Default::default())
    })
    .await
}

/// The whole lab on a random port over `database_url`, each design served
/// by `replicas` server processes in turn (`--replicas`); its address.
pub async fn spawn_lab_with_replicas(database_url: String, replicas: u32) -> String {
    let no_page = std::env::temp_dir().join("idempotency-lab-no-page");
    serve(launcher::Settings {
        storage: over(database_url),
        replicas,
        ..lab_settings(&no_page, Default::default(), Default::default())
    })
    .await
}

/// The lab as `settings` say, serving in the background; its address.
async fn serve(settings: launcher::Settings) -> String {
    let application = launcher::Application::build(&settings)
        .await
        .expect("the lab starts");
    let base = format!("http://{}", application.local_addr());
    tokio::spawn(application.run_until(std::future::pending()));
    base
}

/// Storage at `database_url`, otherwise as the lab's defaults.
fn over(database_url: String) -> lab_core::StorageArgs {
    lab_core::StorageArgs {
        database_url,
        ..Default::default()
    }
}

/// The whole lab on a random port over `backend`, bound but not yet serving
/// (for a test that decides when it stops).
pub async fn build_lab(backend: Backend, ui_dir: &Path) -> launcher::Application {
    build_lab_with(backend, ui_dir, Default::default(), Default::default()).await
}

/// Like [`build_lab`], with the per-lab limits `limits` and the timeouts `timeouts`.
pub async fn build_lab_with(
    backend: Backend,
    ui_dir: &Path,
    limits: lab_platform::limits::RoomLimits,
    timeouts: lab_platform::serve::Timeouts,
) -> launcher::Application {
    let settings = launcher::Settings {
        storage: over(backend.database_url().await),
        ..lab_settings(ui_dir, limits, timeouts)
    };
    launcher::Application::build(&settings)
        .await
        .expect("the lab starts")
}

/// The test lab's settings: a random port, the test teacher's token, and
/// the default storage (which each caller replaces).
fn lab_settings(
    ui_dir: &Path,
    limits: lab_platform::limits::RoomLimits,
    timeouts: lab_platform::serve::Timeouts,
) -> launcher::Settings {
    launcher::Settings {
        addr: "127.0.0.1:0".parse().expect("a socket address"),
        storage: Default::default(),
        limits,
        timeouts,
        teacher: lab_platform::config::TeacherArgs {
            teacher_token: Some(TEACHER_TOKEN.to_owned()),
        },
        workshop: Default::default(),
        replicas: 1,
        ui_dir: ui_dir.to_owned(),
    }
}
