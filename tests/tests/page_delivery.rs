//! The page as a browser receives it, from the built `dist/` (`cargo
//! xtask test` builds it): compressed as the browser accepts, hashed assets
//! kept for a year, the pages revalidated, and on every answer — pages, API,
//! problems — the headers a shared server sends as a second line of
//! defence. Headers only: how fast the page loads is a benchmark
//! (`cargo xtask lighthouse`), never a test.

use lab_e2e::browser::ui_dir;
use lab_e2e::client::TEACHER_TOKEN;
use lab_e2e::{Backend, spawn_lab};
use reqwest::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_SECURITY_POLICY, CONTENT_TYPE,
    IF_MODIFIED_SINCE, LAST_MODIFIED, REFERRER_POLICY, VARY, X_CONTENT_TYPE_OPTIONS,
};

/// A client that leaves `Accept-Encoding` to each request and never
/// decompresses, so the test sees what was sent.
fn raw_client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_gzip()
        .no_brotli()
        .no_deflate()
        .no_zstd()
        .build()
        .unwrap()
}

/// The assets the built page names in its `index.html`: its JS and wasm.
fn assets_of(index_html: &str) -> Vec<String> {
    index_html
        .split(['"', '\''])
        .filter(|part| part.starts_with('/') && (part.ends_with(".js") || part.ends_with(".wasm")))
        .map(str::to_owned)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assets_arrive_compressed_as_accepted_and_hashed_ones_are_kept_for_a_year() {
    let dir = ui_dir();
    let base = spawn_lab(Backend::Sqlite, &dir).await;
    let client = raw_client();
    let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let assets = assets_of(&index);
    assert!(
        assets.iter().any(|a| a.ends_with("_bg.wasm")),
        "the page names its wasm: {assets:?}"
    );

    for asset in &assets {
        for (accepted, sent) in [
            ("br, gzip", Some("br")),
            ("gzip", Some("gzip")),
            ("identity", None),
        ] {
            let answer = client
                .get(format!("{base}{asset}"))
                .header(ACCEPT_ENCODING, accepted)
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status(), 200, "{asset}");
            let headers = answer.headers();
            assert_eq!(
                headers.get(CONTENT_ENCODING).map(|v| v.to_str().unwrap()),
                sent,
                "{asset} for {accepted}"
            );
            assert_eq!(
                headers[CACHE_CONTROL], "public, max-age=31536000, immutable",
                "{asset}"
            );
            assert_eq!(headers[VARY], "accept-encoding", "{asset}");
            let kind = headers[CONTENT_TYPE].to_str().unwrap();
            assert!(
                kind.contains("javascript") || kind == "application/wasm",
                "{asset}: {kind}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_are_compressed_and_revalidated_so_a_second_visit_downloads_almost_nothing() {
    let base = spawn_lab(Backend::Sqlite, &ui_dir()).await;
    let client = raw_client();
    let teacher = format!("/teacher?token={TEACHER_TOKEN}");
    for page in ["/", "/some/deep/link", "/runs/run-0123", teacher.as_str()] {
        let first = client
            .get(format!("{base}{page}"))
            .header(ACCEPT_ENCODING, "br")
            .send()
            .await
            .unwrap();
        assert_eq!(first.status(), 200, "{page}");
        let headers = first.headers().clone();
        assert_eq!(headers[CONTENT_ENCODING], "br", "{page}");
        assert_eq!(headers[CACHE_CONTROL], "no-cache", "{page}");
        assert_eq!(headers[VARY], "accept-encoding", "{page}");
        assert!(
            headers[CONTENT_TYPE]
                .to_str()
                .unwrap()
                .starts_with("text/html"),
            "{page}"
        );

        // The browser asks again with what it has; nothing changed, so
        // the answer is a 304 with no body.
        let again = client
            .get(format!("{base}{page}"))
            .header(ACCEPT_ENCODING, "br")
            .header(IF_MODIFIED_SINCE, &headers[LAST_MODIFIED])
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), 304, "{page}");
        assert!(again.bytes().await.unwrap().is_empty(), "{page}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_carries_the_security_headers_and_the_policy_allows_the_pages_own_loader() {
    let dir = ui_dir();
    let base = spawn_lab(Backend::Sqlite, &dir).await;
    let client = raw_client();
    let teacher = format!("/teacher?token={TEACHER_TOKEN}");
    for path in [
        "/",
        "/runs/run-0123",
        teacher.as_str(),
        "/teacher",
        "/api/naive/orders",
        "/api/openapi.json",
        "/api/no-such-route",
        "/api/runs/run-0123",
    ] {
        let answer = client.get(format!("{base}{path}")).send().await.unwrap();
        let headers = answer.headers();
        let policy = headers[CONTENT_SECURITY_POLICY].to_str().unwrap();
        for directive in [
            "default-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
            "'wasm-unsafe-eval'",
        ] {
            assert!(
                policy.contains(directive),
                "{path}: {directive} in {policy}"
            );
        }
        assert!(!policy.contains("unsafe-inline"), "{path}: {policy}");
        assert!(!policy.contains("'unsafe-eval'"), "{path}: {policy}");
        assert_eq!(headers[X_CONTENT_TYPE_OPTIONS], "nosniff", "{path}");
        assert_eq!(headers[REFERRER_POLICY], "no-referrer", "{path}");
        assert_eq!(headers["x-frame-options"], "DENY", "{path}");
    }

    // Trunk's loader is an inline module script: the policy names its hash.
    let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let answer = client.get(format!("{base}/")).send().await.unwrap();
    let policy = answer.headers()[CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap()
        .to_owned();
    // Inline scripts: every <script …> without a src (Trunk writes its
    // loader as one; the HTML is minified, so attributes have no quotes).
    let inline = index
        .split("<script")
        .skip(1)
        .filter(|tag| !tag[..tag.find('>').unwrap_or(0)].contains("src="))
        .count();
    assert!(inline >= 1, "the built page has its inline loader");
    assert!(
        policy.matches("'sha256-").count() >= inline,
        "each inline script of the page (and the viewer) has its hash: {policy}"
    );
}
