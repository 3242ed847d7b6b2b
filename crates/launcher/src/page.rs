//! Serving the built page as a browser should receive it: compressed
//! (brotli or gzip, chosen by `Accept-Encoding`, from the `.br` and `.gz`
//! files `cargo xtask` writes beside each asset, so a workshop laptop spends
//! no CPU per request on it), hashed assets kept for a year, and the
//! pages themselves revalidated on every visit, so a new build is seen at
//! once while a second visit downloads almost nothing.
//!
//! The Content-Security-Policy lives here too: it allows the page's own
//! scripts, including the loader Trunk writes inline, by their hashes.

use std::path::Path;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use base64::prelude::{BASE64_STANDARD, Engine};
use sha2::{Digest, Sha256};
use tower_http::services::{ServeDir, ServeFile};

/// How long a browser keeps an asset whose name carries its content's hash.
const HASHED_ASSET_CACHE: &str = "public, max-age=31536000, immutable";
/// A page (or anything without a hash in its name): ask the server each time.
const REVALIDATE: &str = "no-cache";

/// The page in `ui_dir`, for every path the API does not take: its assets
/// by name, and `index.html` for any other path (a deep link still loads).
pub fn page_service(ui_dir: &Path) -> Router {
    let index = ServeFile::new(ui_dir.join("index.html"))
        .precompressed_br()
        .precompressed_gzip();
    let files = ServeDir::new(ui_dir)
        .precompressed_br()
        .precompressed_gzip()
        .fallback(index);
    Router::new()
        .fallback_service(files)
        .layer(middleware::from_fn(cache_by_name))
}

/// Sets how long the browser may keep what it is sent, by its name, and
/// that the answer depends on `Accept-Encoding` (a cache must not hand a
/// brotli body to a browser that asked for gzip).
async fn cache_by_name(request: Request, next: Next) -> Response {
    let hashed = is_hashed_asset(request.uri().path());
    let mut response = next.run(request).await;
    if response.status().is_success() || response.status().as_u16() == 304 {
        let headers = response.headers_mut();
        let policy = if hashed {
            HASHED_ASSET_CACHE
        } else {
            REVALIDATE
        };
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    response
}

/// Whether `path` names a file whose name Trunk made from its content:
/// `web-0a1b2c3d4e5f6a7b.js`, `web-0a1b2c3d4e5f6a7b_bg.wasm`,
/// `main-0a1b2c3d4e5f6a7b.css`. A new build gets new names, so such a file
/// never changes and can be kept as long as a browser likes.
pub fn is_hashed_asset(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or_default();
    let Some((stem, extension)) = name.rsplit_once('.') else {
        return false;
    };
    if !matches!(extension, "js" | "wasm" | "css") {
        return false;
    }
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    stem.rsplit_once('-')
        .is_some_and(|(_, hash)| hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The page's Content-Security-Policy: its own origin only, no inline
/// script but the ones in the built pages (`html_files`), allowed by their
/// SHA-256; WebAssembly may be compiled (`wasm-unsafe-eval`, which allows
/// nothing else); no plugins, no `<base>`, no framing by anyone, and forms
/// post nowhere but here.
pub fn content_security_policy(html_files: &[&Path]) -> HeaderValue {
    let mut script_sources = vec!["'self'".to_owned(), "'wasm-unsafe-eval'".to_owned()];
    for file in html_files {
        let Ok(html) = std::fs::read_to_string(file) else {
            continue;
        };
        for script in inline_scripts(&html) {
            let digest = Sha256::digest(script.as_bytes());
            script_sources.push(format!("'sha256-{}'", BASE64_STANDARD.encode(digest)));
        }
    }
    let policy = format!(
        "default-src 'self'; script-src {}; style-src 'self'; img-src 'self' data:; \
         connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
         frame-ancestors 'none'",
        script_sources.join(" ")
    );
    HeaderValue::from_str(&policy).expect("a policy is visible ASCII")
}

/// The text of each `<script>` in `html` that has no `src`: what a
/// browser hashes to match a `'sha256-…'` source.
fn inline_scripts(html: &str) -> Vec<&str> {
    let mut scripts = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<script") {
        let Some(open_end) = rest[start..].find('>') else {
            break;
        };
        let tag = &rest[start..start + open_end];
        let body_start = start + open_end + 1;
        let Some(body_len) = rest[body_start..].find("</script>") else {
            break;
        };
        if !tag.contains(" src=") {
            scripts.push(&rest[body_start..body_start + body_len]);
        }
        rest = &rest[body_start + body_len..];
    }
    scripts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trunks_hashed_names_are_told_from_the_pages_and_other_files() {
        for hashed in [
            "/web-0a1b2c3d4e5f6a7b.js",
            "/web-0a1b2c3d4e5f6a7b_bg.wasm",
            "/viewer/main-0123456789abcdef.css",
        ] {
            assert!(is_hashed_asset(hashed), "{hashed}");
        }
        for not_hashed in [
            "/",
            "/index.html",
            "/viewer/index.html",
            "/runs/run-0123456789abcdef0123456789abcdef",
            "/web.js",
            "/web-0a1b2c3d.js",
            "/web-0a1b2c3d4e5f6a7g.js",
            "/notes-0a1b2c3d4e5f6a7b.txt",
        ] {
            assert!(!is_hashed_asset(not_hashed), "{not_hashed}");
        }
    }

    #[test]
    fn an_inline_script_is_allowed_by_its_hash_and_a_script_with_src_is_not_hashed() {
        let html = r#"<head><script type="module" src="/a.js"></script>
            <script type="module">import init from '/web.js';await init();</script></head>"#;
        assert_eq!(
            inline_scripts(html),
            ["import init from '/web.js';await init();"]
        );
        let dir = std::env::temp_dir().join(format!("csp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("index.html");
        std::fs::write(&file, html).unwrap();
        let policy = content_security_policy(&[&file]);
        let policy = policy.to_str().unwrap();
        // printf %s "import init from '/web.js';await init();" | openssl dgst -sha256 -binary | base64
        assert!(
            policy.contains("'sha256-LNVyvwlRi4M/JbKnOzvDNtI4ZX9Tb9hsXFdMnUC7JGg='"),
            "the inline loader is allowed by its hash: {policy}"
        );
        assert!(!policy.contains("unsafe-inline"), "{policy}");
        assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
        assert!(policy.contains("object-src 'none'"), "{policy}");
    }
}
