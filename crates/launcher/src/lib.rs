//! The launcher: one address serving each order server under `/api/NAME`
//! (naive, locked, safe, transactional, phased, onetrip), all their steps at
//! `/api/steps`, what they did at the payment provider and the mail sink
//! (`/api/side-effects`; the provider and the sink themselves listen on a
//! port of their own on 127.0.0.1, for the servers only), the
//! workshop's saved runs, lesson progress and teacher's view (`/api/runs`,
//! `/api/lesson`, `/api/teacher/labs`), the OpenAPI document at
//! `/api/openapi.json`, and the built web page at `/` (and `/teacher`, for
//! the teacher's token only).

mod bench_command;
mod classroom;
pub mod cli;
mod explore_command;
mod local_lab;
pub mod openapi;
pub mod page;
mod replicas;
mod startup;

use std::net::SocketAddr;
use std::path::PathBuf;

use axum::Router;
use lab_core::cleanup::spawn_cleanup;
use lab_core::explorations::Explorations;
use lab_core::openapi::with_document;
use lab_core::step_stream::combined_steps_route;
use lab_core::steps::{StepHub, close_on};
use lab_core::{OrderServer, Outside, StorageArgs};
use lab_platform::access::TeacherToken;
use lab_platform::config::TeacherArgs;
use lab_platform::error::response::not_found;
use lab_platform::limits::{Room, RoomLimits};
use lab_platform::middleware::{around_routes, with_security_headers};
use lab_platform::serve::{Timeouts, serve_with};
use lab_platform::start::{bind, shutdown_signal};
use lab_platform::{Db, LabError};
use locked_server::LockedServer;
use naive_server::NaiveServer;
use onetrip_server::OneTripServer;
use outside::{OutsideServices, SideEffectsApi, WebhooksApi};
use phased_server::PhasedServer;
use receivers::ReceiversApi;
use replicas::{SharedByDesigns, design_routes};
use safe_server::SafeServer;
use tokio::net::TcpListener;
use transactional_server::TransactionalServer;
use utoipa::OpenApi;
use workshop::{WorkshopApi, WorkshopArgs};

use crate::openapi::lab_document;
pub use crate::startup::{DESIGNS, startup_message};

/// Settings of the lab.
#[derive(Debug, Clone, clap::Args)]
pub struct Settings {
    /// Address to listen on; use 0.0.0.0:8080 to let a classroom connect
    #[arg(long, env = "LAB_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    #[command(flatten)]
    pub storage: StorageArgs,
    #[command(flatten)]
    pub limits: RoomLimits,
    #[command(flatten)]
    pub timeouts: Timeouts,
    #[command(flatten)]
    pub teacher: TeacherArgs,
    #[command(flatten)]
    pub workshop: WorkshopArgs,
    /// Server processes per design, each with its own connection pool (and
    /// the locked server's locks), taking requests in turn; every answer
    /// says which (`Lab-Replica`). 3 shows the in-process lock failing
    #[arg(long, env = "LAB_REPLICAS", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=8))]
    pub replicas: u32,
    /// Folder holding the built page (Trunk's output)
    #[arg(long, env = "LAB_UI_DIR", default_value = "dist")]
    pub ui_dir: PathBuf,
}

/// The six servers and the page, over one storage (`replicas`: one
/// connection to it per server process of each design; see
/// [`replicas`]), charging and e-mailing through `services`; `/api/steps`
/// streams the steps of all six at once.
/// Each lab's limits hold over the servers together, and `teacher`'s token
/// reads every lab on each.
pub fn app(
    replicas: &[Db],
    settings: &Settings,
    teacher: TeacherToken,
    services: &OutsideServices,
    root_url: &str,
) -> LabApp {
    let Settings {
        ui_dir,
        limits,
        timeouts,
        workshop,
        ..
    } = settings;
    let (limits, timeouts, workshop) = (*limits, *timeouts, *workshop);
    // One line for every shop and the outbox's sender: they share its bell.
    let shops = Outside::through(services.client.clone());
    let outside = &shops;
    let room = Room::new(limits);
    let explorations = Explorations::default();
    let shared = SharedByDesigns {
        room: &room,
        teacher: &teacher,
        outside,
        explorations: &explorations,
    };
    let (naive, naive_steps) = design_routes::<NaiveServer>(replicas, shared);
    let (locked, locked_steps) = design_routes::<LockedServer>(replicas, shared);
    let (safe, safe_steps) = design_routes::<SafeServer>(replicas, shared);
    let (transactional, transactional_steps) =
        design_routes::<TransactionalServer>(replicas, shared);
    let (phased, phased_steps) = design_routes::<PhasedServer>(replicas, shared);
    let (onetrip, onetrip_steps) = design_routes::<OneTripServer>(replicas, shared);
    let hubs = vec![
        (NaiveServer::NAME, naive_steps),
        (LockedServer::NAME, locked_steps),
        (SafeServer::NAME, safe_steps),
        (TransactionalServer::NAME, transactional_steps),
        (PhasedServer::NAME, phased_steps),
        (OneTripServer::NAME, onetrip_steps),
    ];
    let api = Router::new()
        .nest_service("/naive", naive)
        .nest_service("/locked", locked)
        .nest_service("/safe", safe)
        .nest_service("/transactional", transactional)
        .nest_service("/phased", phased)
        .nest_service("/onetrip", onetrip)
        .merge(services.lab_routes(
            teacher.clone(),
            &SERVERS,
            vec![outside::Outbox {
                server: PhasedServer::NAME,
                db: replicas[0].clone(),
                waiting: phased_server::waiting,
            }],
        ))
        .merge(combined_steps_route(
            hubs.clone(),
            room.clone(),
            teacher.clone(),
        ))
        .merge(services.webhook_routes(
            format!("{root_url}/api/receivers"),
            room.clone(),
            teacher.clone(),
        ))
        .merge(receivers::routes(
            replicas[0].clone(),
            services.webhook_secrets(),
            room.clone(),
            teacher.clone(),
        ))
        .merge(workshop::routes(
            replicas[0].clone(),
            teacher.clone(),
            workshop,
            room,
        ));
    let document = lab_document(&[
        NaiveServer::NAME,
        LockedServer::NAME,
        SafeServer::NAME,
        TransactionalServer::NAME,
        PhasedServer::NAME,
        OneTripServer::NAME,
    ])
    .nest("/api", WorkshopApi::openapi())
    .nest("/api", SideEffectsApi::openapi())
    .nest("/api", WebhooksApi::openapi())
    .nest("/api", ReceiversApi::openapi());
    let api = with_document(api, &document).fallback(not_found);
    let viewer_html = ui_dir.join("viewer").join("index.html");
    let csp = page::content_security_policy(&[&ui_dir.join("index.html"), &viewer_html]);
    let router = Router::new()
        .nest("/api", api)
        .merge(workshop::page_routes(teacher, viewer_html))
        .merge(page::page_service(ui_dir));
    LabApp {
        router: around_routes(with_security_headers(router, csp), timeouts),
        steps: hubs.into_iter().map(|(_, hub)| hub).collect(),
        shops,
        explorations,
    }
}

/// What [`app`] builds.
pub struct LabApp {
    /// Every route, the page's included.
    pub router: Router,
    /// The servers' step hubs, to be closed when the lab stops.
    pub steps: Vec<StepHub>,
    /// The shops' line to the outside services, which the outbox's sender
    /// shares to hear when an e-mail waits.
    pub shops: Outside,
    /// The explorations of every design: once bound, tell them where
    /// each design is reached ([`Explorations::serve_at`]).
    pub explorations: Explorations,
}

/// Every design, by name, in the order a learner meets them.
const SERVERS: [&str; 6] = [
    NaiveServer::NAME,
    LockedServer::NAME,
    SafeServer::NAME,
    TransactionalServer::NAME,
    PhasedServer::NAME,
    OneTripServer::NAME,
];

/// The lab, bound to its address and ready to serve.
pub struct Application {
    listener: TcpListener,
    db: Db,
    /// Every replica's connections (the first is `db`'s), to close at the end.
    replicas: Vec<Db>,
    router: Router,
    timeouts: Timeouts,
    steps: Vec<StepHub>,
    cleanup: Vec<tokio::task::JoinHandle<()>>,
    outside: OutsideServices,
    teacher_token_made: Option<String>,
}

impl Application {
    /// Connects to storage, applies every server's migrations and binds the address.
    pub async fn build(settings: &Settings) -> Result<Self, LabError> {
        let db = settings.storage.open().await?;
        NaiveServer::migrate(&db).await?;
        LockedServer::migrate(&db).await?;
        SafeServer::migrate(&db).await?;
        TransactionalServer::migrate(&db).await?;
        PhasedServer::migrate(&db).await?;
        OneTripServer::migrate(&db).await?;
        workshop::migrate(&db).await?;
        receivers::migrate(&db).await?;
        if !settings.ui_dir.join("index.html").is_file() {
            tracing::warn!(
                ui_dir = %settings.ui_dir.display(),
                "the page is not built there; the APIs work, but / will answer 404 (build it with `cargo xtask run`)"
            );
        }
        let (teacher, teacher_token_made) = settings.teacher.token();
        let mut replicas = vec![db.clone()];
        for _ in 1..settings.replicas {
            replicas.push(settings.storage.open().await?);
        }
        let outside_db =
            Db::connect(&outside::database_url(&settings.storage.database_url)).await?;
        outside::migrate(&outside_db).await?;
        let outside = OutsideServices::start(outside_db).await?;
        let listener = bind(settings.addr).await?;
        let addr = listener.local_addr().map_err(|source| LabError::Bind {
            addr: settings.addr,
            source,
        })?;
        let root = lab_platform::start::own_url(addr);
        let LabApp {
            router,
            steps,
            shops,
            explorations,
        } = app(&replicas, settings, teacher, &outside, &root);
        for design in SERVERS {
            explorations.serve_at(design, format!("{root}/api/{design}/orders"));
        }
        let workshop_cleanup = workshop::spawn_cleanup(
            db.clone(),
            settings.workshop,
            std::time::Duration::from_secs(settings.storage.cleanup_every_secs),
        );
        let cleanup_every = std::time::Duration::from_secs(settings.storage.cleanup_every_secs);
        let cleanup = spawn_cleanup(
            db.clone(),
            settings.storage.cleanup(vec![
                NaiveServer::STORAGE,
                LockedServer::STORAGE,
                SafeServer::STORAGE,
                TransactionalServer::STORAGE,
                PhasedServer::STORAGE,
                OneTripServer::STORAGE,
            ]),
        );
        // Charges and e-mails matter for the run that made them; a day is plenty.
        let outside_cleanup = outside::spawn_cleanup(
            outside.db().clone(),
            std::time::Duration::from_secs(24 * 60 * 60),
            cleanup_every,
        );
        let receivers_cleanup = receivers::spawn_cleanup(
            db.clone(),
            std::time::Duration::from_secs(24 * 60 * 60),
            cleanup_every,
        );
        let enqueuer = phased_server::spawn_enqueuer(db.clone(), shops);
        Ok(Self {
            listener,
            db,
            replicas,
            router,
            timeouts: settings.timeouts,
            steps,
            cleanup: vec![
                cleanup,
                workshop_cleanup,
                outside_cleanup,
                receivers_cleanup,
                enqueuer,
            ],
            outside,
            teacher_token_made,
        })
    }

    /// The teacher's token, if this lab made it (none was given): to be
    /// shown to the teacher, since nothing else knows it.
    pub fn teacher_token_made(&self) -> Option<&str> {
        self.teacher_token_made.as_deref()
    }

    /// The address actually bound (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// The storage backend in use: `sqlite` or `postgres`.
    pub fn backend_name(&self) -> &'static str {
        self.db.backend_name()
    }

    /// Serves until `shutdown` completes, then closes the storage.
    pub async fn run_until(self, shutdown: impl Future<Output = ()>) {
        let shutdown = close_on(shutdown, self.steps);
        serve_with(self.listener, self.router, self.timeouts, shutdown).await;
        for job in self.cleanup {
            job.abort();
        }
        self.outside.stop().await;
        for db in &self.replicas {
            db.close().await;
        }
    }

    /// Serves until Ctrl-C or SIGTERM.
    pub async fn run(self) {
        self.run_until(shutdown_signal()).await;
    }
}
