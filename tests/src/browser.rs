//! Running the page in real headless Chromium: a chromedriver (and the
//! Chromium it starts) per test, a deadline so that no WebDriver call can
//! hang the suite, and waiting for what the page shows.
//!
//! Needs the built page (`dist/`, or `LAB_UI_DIR`) and Chromium with
//! chromedriver; `cargo xtask test` provides all three.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::{Client, ClientBuilder};

/// A chromedriver process, stopped when dropped.
pub struct Chromedriver {
    process: Child,
    url: String,
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        // chromedriver and the Chromium it started share a process group
        // (see `start_chromedriver`): end them all, or every test would
        // leave a browser running.
        let group = format!("-{}", self.process.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// Runs a browser test body, failing it (rather than hanging the suite)
/// if a WebDriver call never returns.
pub async fn within_deadline(body: impl Future<Output = ()>) {
    tokio::time::timeout(Duration::from_secs(120), body)
        .await
        .expect("the browser test finished within two minutes");
}

pub fn ui_dir() -> PathBuf {
    let dir = std::env::var_os("LAB_UI_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../dist"));
    assert!(
        dir.join("index.html").is_file(),
        "the page is not built in {}: run `cargo xtask test`, which builds it first",
        dir.display()
    );
    dir
}

pub(crate) async fn start_chromedriver() -> Chromedriver {
    let binary = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".to_owned());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let mut process = Command::new(&binary)
        .arg(format!("--port={port}"))
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|error| {
            panic!("cannot start {binary}: {error} (`cargo xtask test` installs it)")
        });
    // Ready is an event chromedriver announces on stdout: wait for that line
    // (the reader goes on draining stdout, so the pipe never fills).
    let stdout = process.stdout.take().expect("stdout is piped");
    let (ready, is_ready) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let mut ready = Some(ready);
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.contains("started successfully")
                && let Some(ready) = ready.take()
            {
                let _ = ready.send(());
            }
        }
    });
    let driver = Chromedriver {
        process,
        url: format!("http://127.0.0.1:{port}"),
    };
    match tokio::time::timeout(Duration::from_secs(10), is_ready).await {
        Ok(Ok(())) => driver,
        _ => panic!("chromedriver did not say it started on {}", driver.url),
    }
}

/// A fresh headless Chromium whose preferred languages are `languages`
/// (`en-US`, `zh-CN,zh`…), as a learner's browser settings would say.
pub(crate) async fn open_browser(driver: &Chromedriver, languages: &str) -> Client {
    let profile =
        std::env::temp_dir().join(format!("idempotency-lab-chromium-{}", uuid::Uuid::new_v4()));
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_owned());
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".to_owned(),
        serde_json::json!({
            "binary": chromium,
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--window-size=1280,1000",
                format!("--user-data-dir={}", profile.display()),
                format!("--lang={}", languages.split(',').next().unwrap_or("en-US")),
            ],
            "prefs": { "intl.accept_languages": languages },
        }),
    );
    // The browser's own log, where it reports what the page's
    // Content-Security-Policy refused (`Learner::policy_violations`).
    capabilities.insert(
        "goog:loggingPrefs".to_owned(),
        serde_json::json!({ "browser": "ALL" }),
    );
    ClientBuilder::rustls()
        .expect("a TLS-capable WebDriver client")
        .capabilities(capabilities)
        .connect(&driver.url)
        .await
        .expect("chromedriver opens a Chromium session")
}

/// Waits until `check` sees what it waits for (a status line, a count),
/// for up to 20 s; returns what it saw. WebDriver cannot tell a client that
/// the page changed, so `check` is asked again every 100 ms: the wait ends
/// on the event itself, the interval only sets how soon it is noticed.
pub async fn eventually<T>(mut check: impl AsyncFnMut() -> Option<T>) -> Option<T> {
    for _ in 0..200 {
        if let Some(found) = check().await {
            return Some(found);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    None
}
