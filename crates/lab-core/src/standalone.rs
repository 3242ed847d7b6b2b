//! What a server binary needs to run on its own: its settings, start-up
//! and a clean stop on Ctrl-C. The launcher uses the same pieces.

use std::net::SocketAddr;

use axum::Router;
use axum::response::Response;
use tokio::net::TcpListener;

use crate::cleanup::{ExpiredKeys, spawn_cleanup};
use crate::steps::close_on;
use crate::{Db, LabError, OrderRequest, OrderTables, ServerState, Steps, StorageArgs, serve};

/// One order server, as the launcher and the standalone binaries see it.
pub trait OrderServer {
    /// A short name for messages, e.g. `naive`.
    const NAME: &'static str;

    /// The server's orders table SQL.
    const ORDER_TABLES: &'static OrderTables;

    /// How the cleanup job deletes the server's expired keys.
    const EXPIRED_KEYS: ExpiredKeys;

    /// The server's routes over `state` (its storage and its step hub).
    fn routes(state: ServerState) -> Router;

    /// The server's routes over `db`, with a step hub of their own.
    fn router(db: Db) -> Router {
        Self::routes(ServerState::new(db, Self::ORDER_TABLES))
    }

    /// The server's `POST /orders` flow without HTTP around it: the same SQL
    /// statements in the same order (the benchmark's baseline calls this).
    fn place_order(
        db: Db,
        request: OrderRequest,
        steps: Steps,
    ) -> impl Future<Output = Result<Response, LabError>> + Send;

    /// Creates or updates the server's tables.
    fn migrate(db: &Db) -> impl Future<Output = Result<(), LabError>> + Send;
}

/// Settings of a server run alone.
#[derive(Debug, Clone, clap::Args)]
pub struct StandaloneArgs {
    /// Address to listen on
    #[arg(long, env = "LAB_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    #[command(flatten)]
    pub storage: StorageArgs,
}

/// Connects, migrates and serves one server until Ctrl-C.
pub async fn run_alone<S: OrderServer>(args: StandaloneArgs) -> Result<(), LabError> {
    init_logging();
    let db = Db::connect(&args.storage.database_url).await?;
    S::migrate(&db).await?;
    let cleanup = spawn_cleanup(
        db.clone(),
        vec![S::EXPIRED_KEYS],
        args.storage.cleanup_interval(),
    );
    let listener = bind(args.addr).await?;
    let addr = listener.local_addr().map_err(|source| LabError::Bind {
        addr: args.addr,
        source,
    })?;
    println!(
        "The {} order server is listening on http://{addr}/orders (storage: {}). Press Ctrl-C to stop.",
        S::NAME,
        db.backend_name()
    );
    let state = ServerState::new(db.clone(), S::ORDER_TABLES);
    let steps = state.steps.clone();
    serve(
        listener,
        S::routes(state),
        close_on(shutdown_signal(), vec![steps]),
    )
    .await;
    cleanup.abort();
    db.close().await;
    println!("Stopped.");
    Ok(())
}

/// Binds a TCP listener, saying which address failed.
pub async fn bind(addr: SocketAddr) -> Result<TcpListener, LabError> {
    TcpListener::bind(addr)
        .await
        .map_err(|source| LabError::Bind { addr, source })
}

/// Completes on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::warn!(%error, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    println!("Stopping: finishing requests in progress…");
}

/// Logs to stderr; `RUST_LOG` chooses what (default: warnings and the lab's info).
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,lab_core=info,launcher=info"));
    // A second call (tests start several servers) keeps the first subscriber.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
