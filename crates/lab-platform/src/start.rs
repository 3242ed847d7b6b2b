//! Starting and stopping a lab service: binding its port (saying which
//! address failed), logging to stderr, and waiting for Ctrl-C or SIGTERM.

use std::net::SocketAddr;

use tokio::net::TcpListener;

use crate::LabError;

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
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new("warn,lab_platform=info,lab_core=info,launcher=info")
    });
    // A second call (tests start several servers) keeps the first subscriber.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
