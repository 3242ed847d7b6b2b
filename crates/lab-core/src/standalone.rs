//! What a server binary needs to run on its own: its settings, start-up
//! and a clean stop on Ctrl-C. The launcher uses the same pieces.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::{Args, CommandFactory, FromArgMatches, Parser};
use tokio::net::TcpListener;

use crate::LabError;
use crate::cleanup::spawn_cleanup;
use crate::config::{StorageArgs, TeacherArgs};
use crate::limits::{Room, RoomLimits};
use axum::http::HeaderValue;

use crate::middleware::{API_CONTENT_SECURITY_POLICY, around_routes, with_security_headers};
use crate::openapi::{server_document, with_document};
use crate::serve::{Timeouts, serve_with};
use crate::server::OrderServer;
use crate::steps::close_on;

/// Settings of a server run alone.
#[derive(Debug, Clone, Args)]
pub struct StandaloneArgs {
    /// Address to listen on
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
}

/// The whole `main` of a server's binary: reads its settings from the
/// command line (`about` is its `--help` text), then runs it until Ctrl-C.
pub fn main<S: OrderServer>(about: &'static str) -> ExitCode {
    let command = StandaloneCommand::command()
        .name(format!("{}-server", S::NAME).leak() as &str)
        .about(about);
    let args = match StandaloneCommand::from_arg_matches(&command.get_matches()) {
        Ok(parsed) => parsed.server,
        Err(error) => error.exit(),
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run_alone::<S>(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The command line of a server run alone.
#[derive(Parser)]
#[command(version)]
struct StandaloneCommand {
    #[command(flatten)]
    server: StandaloneArgs,
}

/// Connects, migrates and serves one server until Ctrl-C.
pub async fn run_alone<S: OrderServer>(args: StandaloneArgs) -> Result<(), LabError> {
    init_logging();
    crate::serve::raise_open_files_limit();
    let db = args.storage.open().await?;
    S::migrate(&db).await?;
    let cleanup = spawn_cleanup(db.clone(), args.storage.cleanup(vec![S::STORAGE]));
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
    let (teacher, made_here) = args.teacher.token();
    if let Some(token) = made_here {
        println!("The teacher's token, which reads every lab: {token}");
    }
    let state = S::state_in(db.clone(), Room::new(args.limits)).with_teacher(teacher);
    let steps = state.steps.clone();
    serve_with(
        listener,
        around_routes(
            with_security_headers(
                with_document(S::routes(state), &server_document(S::NAME)),
                HeaderValue::from_static(API_CONTENT_SECURITY_POLICY),
            ),
            args.timeouts,
        ),
        args.timeouts,
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
