//! Serving a router over TCP with one extra power: hanging up on purpose.
//!
//! `axum::serve` needs a service that never fails, so it always answers.
//! To let a learner lose a response, this loop drives hyper directly: when
//! a response carries the [`HangUp`] marker, the service returns an
//! error and hyper closes the connection without writing anything, exactly
//! what a client sees when a response is lost on the network.
//!
//! A client that opens a connection and sends its headers slowly (or never)
//! is cut off after [`Timeouts::header_secs`], so half-sent requests cannot
//! pile up on a shared server.

use std::future::Future;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tower::ServiceExt;

/// Marks a response that [`serve`] must not send: it closes the connection
/// instead. The demo faults and the simulated crash attach it.
#[derive(Debug, Clone, Copy)]
pub struct HangUp;

impl HangUp {
    /// `response`, marked so that the connection closes without it.
    pub fn mark(mut response: Response) -> Response {
        response.extensions_mut().insert(Self);
        response
    }
}

/// How long the server waits for a slow client, and for itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::Args)]
pub struct Timeouts {
    /// Seconds a client may take to send a request's headers before the connection is closed
    #[arg(long = "header-timeout-secs", env = "LAB_HEADER_TIMEOUT_SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_secs: u64,
    /// Seconds from a request's headers to its answer before the client is told 503 (the order work itself goes on, and a retry with its key gets its answer)
    #[arg(long = "request-timeout-secs", env = "LAB_REQUEST_TIMEOUT_SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub request_secs: u64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            header_secs: 10,
            request_secs: 30,
        }
    }
}

/// How long a shutdown waits for requests in progress before giving up on them.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// The error a connection ends with when its response was dropped on purpose.
#[derive(Debug, thiserror::Error)]
#[error("response dropped on purpose (Lab-Fault: drop-response)")]
struct HungUpOnPurpose;

/// Serves `app` on `listener` until `shutdown` completes, then lets
/// requests in progress finish (for a few seconds at most).
pub async fn serve(listener: TcpListener, app: Router, shutdown: impl Future<Output = ()>) {
    serve_with(listener, app, Timeouts::default(), shutdown).await;
}

/// [`serve`], cutting off clients slower than `timeouts` allow.
pub async fn serve_with(
    listener: TcpListener,
    app: Router,
    timeouts: Timeouts,
    shutdown: impl Future<Output = ()>,
) {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(timeouts.header_secs));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => stream,
                Err(error) => {
                    // Usually "too many open files": wait instead of spinning.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let app = app.clone();
        let service =
            hyper::service::service_fn(move |request| answer_or_hang_up(app.clone(), request));
        let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
        let connection = graceful.watch(connection.into_owned());
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "connection ended");
            }
        });
    }
    drop(listener);
    if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("some connections were still open after {SHUTDOWN_GRACE:?}; closing them");
    }
}

async fn answer_or_hang_up(
    app: Router,
    request: Request<Incoming>,
) -> Result<Response, HungUpOnPurpose> {
    let response = app
        .oneshot(request.map(Body::new))
        .await
        .unwrap_or_else(|never| match never {});
    if response.extensions().get::<HangUp>().is_some() {
        return Err(HungUpOnPurpose);
    }
    Ok(response)
}

/// Lets this process open as many files as the system allows (the soft
/// limit raised to the hard one): a server for a room holds a connection
/// per open page, and a soft limit of 1024 would refuse the rest.
pub fn raise_open_files_limit() {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: both calls only read or write the struct passed to them.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut limit) == 0
                && limit.rlim_cur < limit.rlim_max
            {
                limit.rlim_cur = limit.rlim_max;
                libc::setrlimit(libc::RLIMIT_NOFILE, &raw const limit);
            }
        }
    }
}
