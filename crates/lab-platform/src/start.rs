//! Starting and stopping a lab service: binding its port (saying which
//! address failed), logging to stderr, and waiting for Ctrl-C or SIGTERM.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use tokio::net::TcpListener;

use crate::LabError;

/// Binds a TCP listener, saying which address failed.
pub async fn bind(addr: SocketAddr) -> Result<TcpListener, LabError> {
    TcpListener::bind(addr)
        .await
        .map_err(|source| LabError::Bind { addr, source })
}

/// The URL this process reaches a listener bound to `addr` at: a
/// wildcard address (`0.0.0.0`, `[::]`) is reached on loopback.
pub fn own_url(addr: SocketAddr) -> String {
    let ip = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    format!("http://{}", SocketAddr::new(ip, addr.port()))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wildcard_address_is_reached_on_loopback_and_any_other_as_it_is() {
        for (bound, reached) in [
            ("0.0.0.0:8080", "http://127.0.0.1:8080"),
            ("[::]:8080", "http://[::1]:8080"),
            ("127.0.0.1:9", "http://127.0.0.1:9"),
            ("[::1]:9", "http://[::1]:9"),
            ("192.0.2.7:80", "http://192.0.2.7:80"),
        ] {
            assert_eq!(own_url(bound.parse().unwrap()), reached, "{bound}");
        }
    }
}
