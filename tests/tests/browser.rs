//! The page in real headless Chromium, driven through chromedriver the way
//! a learner uses it: controls are found by their visible labels.
//!
//! Needs the built page (`dist/`, or `LAB_UI_DIR`) and Chromium with
//! chromedriver; `cargo xtask test` provides all three.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::{Client, ClientBuilder, Locator};
use lab_e2e::{Backend, spawn_lab};

/// A chromedriver process, stopped when dropped.
struct Chromedriver {
    process: Child,
    url: String,
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

fn ui_dir() -> PathBuf {
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

async fn start_chromedriver() -> Chromedriver {
    let binary = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".to_owned());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let process = Command::new(&binary)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|error| {
            panic!("cannot start {binary}: {error} (`cargo xtask test` installs it)")
        });
    let driver = Chromedriver {
        process,
        url: format!("http://127.0.0.1:{port}"),
    };
    for _ in 0..100 {
        if reqwest::get(format!("{}/status", driver.url)).await.is_ok() {
            return driver;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("chromedriver did not start listening on {}", driver.url);
}

async fn open_browser(driver: &Chromedriver) -> Client {
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
            ],
        }),
    );
    ClientBuilder::rustls()
        .expect("a TLS-capable WebDriver client")
        .capabilities(capabilities)
        .connect(&driver.url)
        .await
        .expect("chromedriver opens a Chromium session")
}

/// Polls `check` every 100 ms for up to 20 s; returns its last answer.
async fn eventually<T>(mut check: impl AsyncFnMut() -> Option<T>) -> Option<T> {
    for _ in 0..200 {
        if let Some(found) = check().await {
            return Some(found);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    None
}

/// The number in a pane's "Orders stored: N" heading.
async fn orders_stored(browser: &Client, pane: &str) -> usize {
    let heading = browser
        .find(Locator::XPath(&format!(
            "//section[h2[normalize-space()='{pane}']]//h3[starts-with(normalize-space(), 'Orders stored:')]"
        )))
        .await
        .unwrap_or_else(|error| panic!("the {pane} pane has an 'Orders stored' heading: {error}"));
    let text = heading.text().await.expect("heading text");
    text.rsplit(':')
        .next()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no count in {text:?}"))
}

async fn pane_text(browser: &Client, pane: &str) -> String {
    browser
        .find(Locator::XPath(&format!(
            "//section[h2[normalize-space()='{pane}']]"
        )))
        .await
        .expect("the pane exists")
        .text()
        .await
        .expect("pane text")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sending_concurrently_shows_more_orders_on_the_naive_pane_than_the_single_safe_one() {
    let base = spawn_lab(Backend::Sqlite, &ui_dir()).await;
    let driver = start_chromedriver().await;
    let browser = open_browser(&driver).await;

    browser.goto(&base).await.expect("the page loads");
    let label = eventually(async || {
        browser
            .find(Locator::XPath(
                "//label[normalize-space()='Send concurrently']",
            ))
            .await
            .ok()
    })
    .await
    .expect("a 'Send concurrently' label appears once the app has started");
    let checkbox_id = label
        .attr("for")
        .await
        .expect("label attribute")
        .expect("the label names its checkbox");
    let checkbox = browser
        .find(Locator::Id(&checkbox_id))
        .await
        .expect("the labelled checkbox");
    label.click().await.expect("tick 'Send concurrently'");
    assert!(
        checkbox.is_selected().await.expect("checkbox state"),
        "clicking the label ticks the box"
    );

    browser
        .find(Locator::XPath("//button[normalize-space()='Place order']"))
        .await
        .expect("a 'Place order' button")
        .click()
        .await
        .expect("click 'Place order'");

    let status = browser
        .find(Locator::Css("[role=status]"))
        .await
        .expect("a status line");
    eventually(async || {
        status
            .text()
            .await
            .ok()
            .filter(|text| text.starts_with("Done"))
    })
    .await
    .expect("the run finishes and says so");

    let naive = orders_stored(&browser, "Naive").await;
    let safe = orders_stored(&browser, "Safe").await;
    let naive_text = pane_text(&browser, "Naive").await;
    let safe_text = pane_text(&browser, "Safe").await;
    assert_eq!(
        safe, 1,
        "the safe server stores exactly one order:\n{safe_text}"
    );
    assert!(
        naive > safe,
        "the naive server stores duplicates ({naive} vs {safe}):\n{naive_text}"
    );
    assert!(
        naive_text.contains("duplicate"),
        "the naive pane flags the duplicates:\n{naive_text}"
    );
    assert!(
        naive_text.contains("charged"),
        "the naive verdict names the double charge:\n{naive_text}"
    );
    assert!(
        !safe_text.contains("duplicate"),
        "no duplicate on the safe pane:\n{safe_text}"
    );

    // Kept for people to look at (not compared): target/screenshots/.
    let screenshots = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/screenshots");
    let png = browser.screenshot().await.expect("a screenshot");
    std::fs::create_dir_all(&screenshots).expect("create target/screenshots");
    std::fs::write(screenshots.join("first-page-concurrent.png"), png)
        .expect("save the screenshot");

    browser.close().await.expect("close the browser");
}
