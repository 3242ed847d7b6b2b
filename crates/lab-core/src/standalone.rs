//! What an order server's binary needs to run on its own: its settings,
//! start-up and a clean stop on Ctrl-C.

use std::net::SocketAddr;
use std::process::ExitCode;

use axum::http::HeaderValue;
use clap::{Args, CommandFactory, FromArgMatches, Parser};
use lab_platform::LabError;
use lab_platform::config::TeacherArgs;
use lab_platform::limits::{Room, RoomLimits};
use lab_platform::middleware::{API_CONTENT_SECURITY_POLICY, around_routes, with_security_headers};
use lab_platform::serve::{Timeouts, serve_with};
use lab_platform::start::{bind, init_logging, shutdown_signal};

use crate::cleanup::spawn_cleanup;
use crate::config::StorageArgs;
use crate::openapi::{server_document, with_document};
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
    lab_platform::serve::raise_open_files_limit();
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
    let orders_url = format!("{}/orders", lab_platform::start::own_url(addr));
    state.explorations.serve_at(S::NAME, orders_url);
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
