//! What wraps every route of a server: a trace span per request
//! (tower-http's `TraceLayer`; `RUST_LOG=tower_http=debug` shows them), a
//! deadline for the answer, and the headers a server shared by a room
//! sends with every answer as a second line of defence.

use std::time::Duration;

use axum::Router;
use axum::error_handling::HandleErrorLayer;
use axum::http::{HeaderName, HeaderValue, header};
use tower::ServiceBuilder;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

use crate::LabError;
use crate::serve::Timeouts;

/// `router`, with a trace span per request and the request deadline of `timeouts`.
///
/// Past the deadline the client is answered 503 problem+json with
/// `Retry-After`. Order work is spawned (see `lab_core::work`), so it runs
/// to its end all the same, as when a client hangs up; a retry with the
/// same key then gets its answer.
pub fn around_routes(router: Router, timeouts: Timeouts) -> Router {
    let deadline = Duration::from_secs(timeouts.request_secs);
    router.layer(
        ServiceBuilder::new()
            .layer(TraceLayer::new_for_http().make_span_with(span_without_query))
            .layer(HandleErrorLayer::new(
                move |_: tower::BoxError| async move {
                    LabError::RequestTimedOut(timeouts.request_secs)
                },
            ))
            .timeout(deadline),
    )
}

/// The Content-Security-Policy of a server that serves no page: nothing
/// it answers may load anything, run anything or be framed.
pub const API_CONTENT_SECURITY_POLICY: &str =
    "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// `router`, with on every answer (pages, API, problems alike) the policy
/// `csp`, `X-Content-Type-Options: nosniff` (a JSON answer is never run as
/// a script), `Referrer-Policy: no-referrer` (a lab's link may carry its
/// secret, the teacher's its token) and `X-Frame-Options: DENY` (for
/// browsers older than `frame-ancestors`).
pub fn with_security_headers(router: Router, csp: HeaderValue) -> Router {
    let always =
        |name: HeaderName, value: HeaderValue| SetResponseHeaderLayer::overriding(name, value);
    router.layer(
        ServiceBuilder::new()
            .layer(always(header::CONTENT_SECURITY_POLICY, csp))
            .layer(always(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ))
            .layer(always(
                header::REFERRER_POLICY,
                HeaderValue::from_static("no-referrer"),
            ))
            .layer(always(
                header::X_FRAME_OPTIONS,
                HeaderValue::from_static("DENY"),
            )),
    )
}

/// A request's span: its method and path. Not its query, which may carry
/// a lab's secret or the teacher's token (the step streams take them there).
fn span_without_query<B>(request: &axum::http::Request<B>) -> tracing::Span {
    tracing::debug_span!(
        "request",
        method = %request.method(),
        path = request.uri().path(),
    )
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::{Request, StatusCode, header};
    use axum::routing::get;
    use tower::ServiceExt;

    use super::*;

    #[tokio::test]
    async fn every_answer_carries_the_security_headers_problems_included() {
        let app = with_security_headers(
            Router::new().route("/", get(|| async { "hello" })),
            HeaderValue::from_static(API_CONTENT_SECURITY_POLICY),
        );
        for path in ["/", "/nothing-here"] {
            let response = app
                .clone()
                .oneshot(Request::get(path).body(Body::empty()).unwrap())
                .await
                .unwrap();
            let headers = response.headers();
            assert_eq!(
                headers[header::CONTENT_SECURITY_POLICY],
                API_CONTENT_SECURITY_POLICY,
                "{path}"
            );
            assert_eq!(headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff", "{path}");
            assert_eq!(headers[header::REFERRER_POLICY], "no-referrer", "{path}");
            assert_eq!(headers[header::X_FRAME_OPTIONS], "DENY", "{path}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_past_the_deadline_is_a_503_problem_with_retry_after() {
        let slow = Router::new().route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(120)).await;
                "too late"
            }),
        );
        let timeouts = Timeouts {
            header_secs: 10,
            request_secs: 30,
        };
        let response = around_routes(slow, timeouts)
            .oneshot(Request::get("/slow").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[header::RETRY_AFTER], "1");
        let body = axum::body::to_bytes(response.into_body(), 4096)
            .await
            .unwrap();
        let problem: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(problem["type"], "/problems/request-timed-out");
        assert!(problem["detail"].as_str().unwrap().contains("30 s"));
    }
}
