//! What a workshop adds around the order servers, under `/api`:
//!
//! - `POST /runs` saves a finished run as the page recorded it (a lab's
//!   own, with its secret) and answers its permalink, `/runs/ID`; `GET
//!   /runs/{id}` gives it back to anyone holding the link, which is how a
//!   run reaches a projector, a bug report or homework; `GET /runs` lists
//!   a lab's runs, to the lab or the teacher. Runs expire (`--keep-runs-days`)
//!   and a lab keeps at most `--max-runs-per-lab`.
//! - `PUT /lesson` records how far a lab got in the guided lesson and what
//!   it predicted.
//! - `GET /teacher/labs` shows the teacher every lab active in the room,
//!   with the teacher's token only; so does the page `/teacher?token=…`.
//!
//! A lab's runs and progress are reached only through its secret or the
//! teacher's token, like its orders; a run's id is random (122 bits), so
//! its link is the only way to it.

mod handlers;
mod settings;
mod store;
mod teacher;
mod viewer;

use std::path::PathBuf;
use std::time::Duration;

use axum::Router;
use axum::routing::{get, put};
use lab_platform::Db;
use lab_platform::access::TeacherToken;
use lab_platform::limits::Room;
use tokio::task::JoinHandle;
use utoipa::OpenApi;

pub use settings::{WorkshopArgs, WorkshopState};
pub use viewer::{run_page, scheduler_page, teacher_page};

/// The workshop's migrations (runs and lesson progress).
pub async fn migrate(db: &Db) -> Result<(), lab_platform::LabError> {
    db.migrate(lab_platform::migrations!()()).await
}

/// The workshop's API routes, to be nested under `/api`.
pub fn routes(db: Db, teacher: TeacherToken, settings: WorkshopArgs, room: Room) -> Router {
    Router::new()
        .route("/runs", get(handlers::list_runs).post(handlers::save_run))
        .route("/runs/{id}", get(handlers::get_run))
        .route("/lesson", put(handlers::save_progress))
        .route("/teacher/labs", get(teacher::room))
        .with_state(WorkshopState {
            db,
            teacher,
            settings,
            room,
        })
}

/// The viewer's pages, `/runs/{id}`, `/teacher` and `/scheduler`, given
/// the viewer bundle's `index.html`.
pub fn page_routes(teacher: TeacherToken, index_html: PathBuf) -> Router {
    Router::new()
        .route("/runs/{id}", get(run_page))
        .route("/teacher", get(teacher_page))
        .route("/scheduler", get(scheduler_page))
        .with_state(viewer::ViewerPage {
            teacher,
            index_html,
        })
}

/// Deletes the runs that have expired by now and the lesson progress of
/// labs idle for as long as runs are kept; returns how many rows went.
pub async fn delete_expired(db: &Db, settings: WorkshopArgs) -> sqlx::Result<u64> {
    let now = chrono::Utc::now();
    store::delete_expired(db, now, now - settings.retention()).await
}

/// Runs [`delete_expired`] every `every`, from now on.
pub fn spawn_cleanup(db: Db, settings: WorkshopArgs, every: Duration) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        loop {
            ticks.tick().await;
            match delete_expired(&db, settings).await {
                Ok(0) => {}
                Ok(deleted) => tracing::info!(deleted, "expired runs and idle lessons deleted"),
                Err(error) => tracing::warn!(%error, "deleting expired runs failed"),
            }
        }
    })
}

/// The workshop's routes in the lab's OpenAPI document.
#[derive(OpenApi)]
#[openapi(
    paths(
        handlers::save_run,
        handlers::list_runs,
        handlers::get_run,
        handlers::save_progress,
        teacher::room
    ),
    components(schemas(
        lab_wire::workshop::SavedRun,
        lab_wire::workshop::RunSummary,
        lab_wire::workshop::LessonProgress,
        lab_wire::workshop::Challenge,
        lab_wire::workshop::LabActivity,
        lab_wire::run::RunRecord,
    ))
)]
pub struct WorkshopApi;
