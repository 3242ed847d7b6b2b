//! The viewer's pages: a saved run's permalink (`/runs/ID`), for anyone
//! with the link, the teacher's view (`/teacher?token=…`), for the
//! teacher's token only, and the scheduler (`/scheduler`), where a learner
//! steps copies of an order one statement at a time. Both are the viewer bundle's `index.html`
//! (`dist/viewer/`); it draws the one the address names.

use std::path::PathBuf;

use axum::extract::{RawQuery, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use lab_platform::LabError;
use lab_platform::access::TeacherToken;
use tower::ServiceExt;
use tower_http::services::ServeFile;

use crate::teacher::check;

/// What the viewer's pages need: the token to check and the page to serve.
#[derive(Clone)]
pub struct ViewerPage {
    pub teacher: TeacherToken,
    pub index_html: PathBuf,
}

/// The viewer's `index.html`, compressed as the browser accepts (from the
/// `.br` and `.gz` files beside it) and revalidated on every visit, so a
/// new build is seen at once. No referrer: its address may hold a token or
/// a run's id (the lab sends `Referrer-Policy: no-referrer` everywhere; this
/// page must not depend on that).
async fn viewer_html(page: &ViewerPage, request: Request) -> Result<Response, LabError> {
    let file = ServeFile::new(&page.index_html)
        .precompressed_br()
        .precompressed_gzip();
    let mut response = file
        .oneshot(request)
        .await
        .map_err(|_| LabError::NotFound)?
        .map(axum::body::Body::new);
    if response.status() == StatusCode::NOT_FOUND {
        return Err(LabError::NotFound);
    }
    let headers = response.headers_mut();
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    Ok(response)
}

/// `GET /runs/{id}`: the page that draws a saved run (it reads the run from
/// `/api/runs/{id}`, which answers 404 for an unknown one).
pub async fn run_page(
    State(page): State<ViewerPage>,
    request: Request,
) -> Result<Response, LabError> {
    viewer_html(&page, request).await
}

/// `GET /scheduler`: the page where the learner steps copies by hand (it
/// opens the lab its link's fragment names, as the learner's page does).
pub async fn scheduler_page(
    State(page): State<ViewerPage>,
    request: Request,
) -> Result<Response, LabError> {
    viewer_html(&page, request).await
}

/// `GET /teacher?token=…`: the page, which draws the teacher's view; 401
/// without the token. A page a browser opens cannot send a header, so the
/// token comes in the link the lab printed.
pub async fn teacher_page(
    State(page): State<ViewerPage>,
    RawQuery(query): RawQuery,
    request: Request,
) -> Result<Response, LabError> {
    // A token is letters, digits, `-` and `_`: nothing in it is percent-encoded.
    let token = query.as_deref().and_then(|query| {
        query
            .split('&')
            .find_map(|pair| pair.strip_prefix("token="))
    });
    check(&page.teacher, token)?;
    viewer_html(&page, request).await
}
