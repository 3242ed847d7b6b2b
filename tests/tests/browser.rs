//! The page in real headless Chromium, driven through chromedriver the way
//! a learner uses it: controls are found by their visible labels.
//!
//! Needs the built page (`dist/`, or `LAB_UI_DIR`) and Chromium with
//! chromedriver; `cargo xtask test` provides all three.

use std::os::unix::process::CommandExt;
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
async fn within_deadline(body: impl Future<Output = ()>) {
    tokio::time::timeout(Duration::from_secs(120), body)
        .await
        .expect("the browser test finished within two minutes");
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
        .process_group(0)
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

/// A learner at a browser: finds things by what the page shows.
struct Learner {
    browser: Client,
    _driver: Chromedriver,
}

impl Learner {
    /// A fresh browser showing the page at `url`, once the app has started.
    async fn open(url: &str) -> Self {
        let driver = start_chromedriver().await;
        let browser = open_browser(&driver).await;
        let learner = Self {
            browser,
            _driver: driver,
        };
        learner.go_to(url).await;
        learner
    }

    async fn go_to(&self, url: &str) {
        self.browser.goto(url).await.expect("the page loads");
        eventually(async || {
            self.browser
                .find(Locator::XPath("//button[normalize-space()='Place order']"))
                .await
                .ok()
        })
        .await
        .expect("the app starts and shows its 'Place order' button");
    }

    async fn current_url(&self) -> String {
        self.browser.current_url().await.expect("a URL").to_string()
    }

    async fn button(&self, text: &str) -> fantoccini::elements::Element {
        self.browser
            .find(Locator::XPath(&format!(
                "//button[normalize-space()='{text}']"
            )))
            .await
            .unwrap_or_else(|error| panic!("a button labelled {text:?}: {error}"))
    }

    /// Clicks a button and waits until the page says the run is done.
    async fn press_and_wait(&self, text: &str) {
        self.button(text).await.click().await.expect("click");
        let status = self
            .browser
            .find(Locator::Css("[role=status]"))
            .await
            .expect("a status line");
        eventually(async || {
            status
                .text()
                .await
                .ok()
                .filter(|t| t.starts_with("Done") || t.starts_with("Reset"))
        })
        .await
        .unwrap_or_else(|| panic!("pressing {text:?} finishes and says so"));
    }

    /// The form control whose visible label reads `label`, and the label.
    async fn control(
        &self,
        label: &str,
    ) -> (fantoccini::elements::Element, fantoccini::elements::Element) {
        let label_element = self
            .browser
            .find(Locator::XPath(&format!(
                "//label[normalize-space()='{label}']"
            )))
            .await
            .unwrap_or_else(|error| panic!("a label {label:?}: {error}"));
        let id = label_element
            .attr("for")
            .await
            .expect("attribute")
            .expect("the label names its control");
        let control = self
            .browser
            .find(Locator::Id(&id))
            .await
            .expect("the labelled control");
        (control, label_element)
    }

    /// Types `value` into the number field labelled `label` and leaves it (Tab).
    async fn set_number(&self, label: &str, value: u32) {
        let (field, _) = self.control(label).await;
        field.clear().await.expect("clear the field");
        field
            .send_keys(&format!("{value}\u{E004}"))
            .await
            .expect("type and press Tab");
        assert_eq!(
            field.prop("value").await.expect("value").as_deref(),
            Some(value.to_string().as_str()),
            "{label}"
        );
    }

    /// Unticks the checkbox whose label reads `label` by clicking the label.
    async fn untick(&self, label: &str) {
        let (checkbox, label_element) = self.control(label).await;
        label_element.click().await.expect("click the label");
        assert!(
            !checkbox.is_selected().await.expect("state"),
            "clicking {label:?} unticks its box"
        );
    }

    /// Ticks the checkbox whose label reads `label` by clicking the label.
    async fn tick(&self, label: &str) {
        let (checkbox, label_element) = self.control(label).await;
        label_element.click().await.expect("click the label");
        assert!(
            checkbox.is_selected().await.expect("state"),
            "clicking {label:?} ticks its box"
        );
    }

    /// The number in a pane's "Orders stored: N" heading.
    async fn orders_stored(&self, pane: &str) -> usize {
        let xpath = format!(
            "{}//h3[starts-with(normalize-space(), 'Orders stored:')]",
            pane_xpath(pane)
        );
        let heading = self
            .browser
            .find(Locator::XPath(&xpath))
            .await
            .expect("an 'Orders stored' heading");
        let text = heading.text().await.expect("heading text");
        text.rsplit(':')
            .next()
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("no count in {text:?}"))
    }

    async fn pane_text(&self, pane: &str) -> String {
        let section = self
            .browser
            .find(Locator::XPath(&pane_xpath(pane)))
            .await
            .expect("the pane");
        section.text().await.expect("pane text")
    }

    /// The outcome of each attempt on a pane's timeline, in order.
    async fn outcomes(&self, pane: &str) -> Vec<String> {
        let xpath = format!(
            "{}//ol[contains(@class, 'timeline')]//strong[contains(@class, 'outcome')]",
            pane_xpath(pane)
        );
        let mut outcomes = Vec::new();
        for element in self
            .browser
            .find_all(Locator::XPath(&xpath))
            .await
            .expect("timeline outcomes")
        {
            outcomes.push(element.text().await.expect("outcome text"));
        }
        outcomes
    }

    /// A pane's sequence diagram, row by row: the lane (column) of the
    /// step and its text.
    async fn diagram_rows(&self, pane: &str) -> Vec<(usize, String)> {
        let xpath = format!(
            "{}//table[contains(@class, 'sequence')]/tbody/tr",
            pane_xpath(pane)
        );
        let mut rows = Vec::new();
        for row in self.browser.find_all(Locator::XPath(&xpath)).await.unwrap() {
            let cells = row.find_all(Locator::Css("td")).await.unwrap();
            for (lane, cell) in cells.iter().enumerate() {
                let text = cell.text().await.unwrap();
                if !text.is_empty() {
                    rows.push((lane, text));
                }
            }
        }
        rows
    }

    async fn save_screenshot(&self, name: &str) {
        // Wide and tall enough for the controls and both panes side by side.
        self.browser
            .set_window_size(1400, 2300)
            .await
            .expect("resize the window");
        let png = self.browser.screenshot().await.expect("a screenshot");
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut folders = vec![root.join("target/screenshots")];
        // The README shows docs/; refresh it with UPDATE_SCREENSHOTS=1 when the page changes.
        if std::env::var_os("UPDATE_SCREENSHOTS").is_some() {
            folders.push(root.join("docs"));
        }
        for folder in folders {
            std::fs::create_dir_all(&folder).expect("create the screenshot folder");
            std::fs::write(folder.join(name), &png).expect("save the screenshot");
        }
    }
}

fn pane_xpath(pane: &str) -> String {
    format!("//section[h2[normalize-space()='{pane}']]")
}

async fn open_lab() -> (String, Learner) {
    let base = spawn_lab(Backend::Sqlite, &ui_dir()).await;
    let learner = Learner::open(&base).await;
    (base, learner)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sending_concurrently_shows_more_orders_on_the_naive_pane_than_the_single_transactional_one()
 {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.tick("Send concurrently").await;
        learner.press_and_wait("Place order").await;

        let naive = learner.orders_stored("Naive").await;
        let transactional = learner.orders_stored("Transactional").await;
        let naive_text = learner.pane_text("Naive").await;
        let transactional_text = learner.pane_text("Transactional").await;
        assert_eq!(
            transactional, 1,
            "the transactional server stores exactly one order:\n{transactional_text}"
        );
        assert!(
            naive > transactional,
            "the naive server stores duplicates ({naive} vs {transactional}):\n{naive_text}"
        );
        assert!(
            naive_text.contains("duplicate purchase"),
            "the naive pane flags the duplicates:\n{naive_text}"
        );
        assert!(
            naive_text.contains("charged"),
            "the naive verdict names the charge:\n{naive_text}"
        );
        assert!(
            !transactional_text.contains("duplicate"),
            "no duplicate on the transactional pane:\n{transactional_text}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dropped_response_preset_leaves_one_order_on_each_server() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Dropped response").await;

        for pane in ["Naive", "Transactional"] {
            assert_eq!(
                learner.orders_stored(pane).await,
                1,
                "{pane}:\n{}",
                learner.pane_text(pane).await
            );
            assert_eq!(
                learner.outcomes(pane).await,
                ["dropped", "201 replayed"],
                "{pane}"
            );
        }
        let page = learner
            .browser
            .find(Locator::Css("main"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            page.contains("What to notice: Dropped response"),
            "the preset explains itself"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_concurrent_preset_duplicates_on_naive_and_keeps_one_order_on_transactional() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Concurrent sends").await;

        let naive = learner.orders_stored("Naive").await;
        assert!(
            naive > 1,
            "several orders on Naive:\n{}",
            learner.pane_text("Naive").await
        );
        assert!(
            learner
                .pane_text("Naive")
                .await
                .contains("duplicate purchase")
        );
        assert_eq!(
            learner
                .outcomes("Naive")
                .await
                .iter()
                .filter(|o| *o == "201")
                .count(),
            naive
        );
        assert_eq!(learner.orders_stored("Transactional").await, 1);
        let transactional = learner.outcomes("Transactional").await;
        assert_eq!(transactional.len(), 3, "{transactional:?}");
        assert_eq!(
            transactional.iter().filter(|o| *o == "201").count(),
            1,
            "one copy won: {transactional:?}"
        );
        assert!(
            transactional
                .iter()
                .all(|o| o == "201" || o == "201 replayed"),
            "the others hit the constraint and got the winner's answer: {transactional:?}"
        );
        learner.save_screenshot("lab-concurrent.png").await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_slow_response_preset_duplicates_on_naive_and_answers_409_then_a_replay_on_safe() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner
            .press_and_wait("Slow response + client timeout")
            .await;

        let naive_text = learner.pane_text("Naive").await;
        assert_eq!(
            learner.orders_stored("Naive").await,
            2,
            "the timed-out retry made a second order:\n{naive_text}"
        );
        assert!(naive_text.contains("duplicate purchase"), "{naive_text}");
        assert_eq!(learner.orders_stored("Safe").await, 1);
        let safe = learner.outcomes("Safe").await;
        assert_eq!(
            safe.first().map(String::as_str),
            Some("timed out"),
            "{safe:?}"
        );
        let conflict = safe
            .iter()
            .position(|o| o == "409")
            .unwrap_or_else(|| panic!("a 409 on Safe: {safe:?}"));
        assert_eq!(
            safe.last().map(String::as_str),
            Some("201 replayed"),
            "{safe:?}"
        );
        assert!(
            conflict < safe.len() - 1,
            "the 409 comes before the replay: {safe:?}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_new_key_preset_duplicates_on_both_servers() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("New key per attempt").await;

        for pane in ["Naive", "Transactional"] {
            let text = learner.pane_text(pane).await;
            assert_eq!(learner.orders_stored(pane).await, 2, "{pane}:\n{text}");
            assert!(
                text.contains("duplicate purchase"),
                "{pane} flags one purchase with two keys:\n{text}"
            );
            assert_eq!(learner.outcomes(pane).await, ["dropped", "201"], "{pane}");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn learners_in_different_labs_do_not_see_each_others_orders_and_reset_clears_only_ones_own() {
    within_deadline(async {
        let (base, alice) = open_lab().await;
        let bob = Learner::open(&base).await;
        let alice_url = alice.current_url().await;
        assert_ne!(
            alice_url,
            bob.current_url().await,
            "each browser gets its own lab in its URL"
        );

        alice.press_and_wait("Place order").await;
        alice.press_and_wait("Place order").await;
        bob.press_and_wait("Place order").await;
        assert_eq!(alice.orders_stored("Naive").await, 2);
        assert_eq!(
            bob.orders_stored("Naive").await,
            1,
            "Bob sees only his own order"
        );

        bob.press_and_wait("Reset").await;
        assert_eq!(bob.orders_stored("Naive").await, 0);
        assert_eq!(bob.orders_stored("Transactional").await, 0);
        alice.go_to(&alice_url).await;
        let alice_after = eventually(async || {
            Some(alice.orders_stored("Transactional").await).filter(|n| *n == 2)
        })
        .await;
        assert_eq!(alice_after, Some(2), "Bob's reset left Alice's lab alone");

        // A teacher opens Alice's lab from her link.
        bob.go_to(&alice_url).await;
        let teacher_sees =
            eventually(async || Some(bob.orders_stored("Naive").await).filter(|n| *n == 2)).await;
        assert_eq!(teacher_sees, Some(2), "Alice's link opens Alice's lab");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_works_from_the_keyboard_alone() {
    within_deadline(async {
        let (_, learner) = open_lab().await;
        let field = async |label: &str| learner.control(label).await.0;

        // Space toggles a focused checkbox; Enter in a text field submits the form.
        field("Send concurrently")
            .await
            .send_keys(" ")
            .await
            .expect("press space");
        assert!(
            field("Send concurrently")
                .await
                .is_selected()
                .await
                .unwrap()
        );
        let item = field("Item").await;
        item.clear().await.expect("clear the item");
        item.send_keys("tea\u{E007}")
            .await
            .expect("type and press Enter");
        let status = learner
            .browser
            .find(Locator::Css("[role=status]"))
            .await
            .unwrap();
        eventually(async || status.text().await.ok().filter(|t| t.starts_with("Done")))
            .await
            .expect("Enter placed the order");

        assert_eq!(learner.orders_stored("Transactional").await, 1);
        assert!(
            learner.orders_stored("Naive").await > 1,
            "the box ticked by keyboard sent copies"
        );
        assert!(
            learner
                .pane_text("Transactional")
                .await
                .contains("tea · 4.50"),
            "the typed item was ordered"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_crash_preset_recovers_one_order_on_safe_and_rolls_back_on_transactional() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Crash mid-request").await;

        // Chromium quietly resends a POST when a reused keep-alive connection
        // closes without an answer, so the crash can hit more than once, and
        // the first answer the page sees from Safe may already be the 409 of
        // a resent request.
        let safe_text = learner.pane_text("Safe").await;
        assert_eq!(learner.orders_stored("Safe").await, 1, "{safe_text}");
        let safe = learner.outcomes("Safe").await;
        assert!(
            safe.iter().any(|o| o == "409"),
            "the crashed claim held the key: {safe:?}"
        );
        assert_eq!(
            safe.last().map(String::as_str),
            Some("201 replayed"),
            "a retry took the claim over and replayed the order the crash left: {safe:?}"
        );
        assert!(
            safe_text.contains("took over a stale claim")
                && safe_text.contains("found the crashed request's order"),
            "Safe's diagram shows the recovery:\n{safe_text}"
        );

        let transactional_text = learner.pane_text("Transactional").await;
        assert_eq!(
            learner.orders_stored("Transactional").await,
            1,
            "{transactional_text}"
        );
        let transactional = learner.outcomes("Transactional").await;
        assert_eq!(
            transactional.last().map(String::as_str),
            Some("201"),
            "the crash left nothing behind, so a retry simply created the order: {transactional:?}"
        );
        assert!(
            !transactional.iter().any(|o| o == "409"),
            "no claim outlived the crash: {transactional:?}"
        );
        let steps = learner.diagram_rows("Transactional").await;
        assert!(
            steps.iter().any(|(_, text)| text == "crashed"),
            "Transactional's diagram shows the crash: {steps:#?}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_changed_payload_preset_is_replayed_silently_by_naive_and_refused_by_transactional() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Changed payload").await;

        assert_eq!(learner.outcomes("Naive").await, ["dropped", "201 replayed"]);
        let naive_text = learner.pane_text("Naive").await;
        assert!(
            naive_text.contains("believes the new order went through"),
            "{naive_text}"
        );
        let transactional = learner.outcomes("Transactional").await;
        assert_eq!(transactional.len(), 2, "{transactional:?}");
        assert!(transactional[1].starts_with("422"), "{transactional:?}");
        for pane in ["Naive", "Transactional"] {
            assert_eq!(learner.orders_stored(pane).await, 1, "{pane}");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_expiry_preset_duplicates_on_both_servers() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Late retry after expiry").await;

        for pane in ["Naive", "Transactional"] {
            let text = learner.pane_text(pane).await;
            assert_eq!(learner.orders_stored(pane).await, 2, "{pane}:\n{text}");
            assert_eq!(learner.outcomes(pane).await, ["dropped", "201"], "{pane}");
            assert!(
                text.contains("for 2 s only"),
                "{pane} names the retention:\n{text}"
            );
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_on_hang_up_leaves_no_order_where_finishing_makes_one() {
    within_deadline(async {
        let (_, learner) = open_lab().await;
        learner.set_number("Client timeout (ms)", 300).await;
        learner.set_number("Server processing time (ms)", 800).await;
        learner.set_number("Retries", 0).await;

        learner
            .tick("Cancel the work when the client hangs up")
            .await;
        learner.press_and_wait("Place order").await;
        for pane in ["Naive", "Transactional"] {
            assert_eq!(learner.outcomes(pane).await, ["timed out"], "{pane}");
            assert_eq!(
                learner.orders_stored(pane).await,
                0,
                "{pane}: the work was dropped with the connection"
            );
        }

        learner
            .untick("Cancel the work when the client hangs up")
            .await;
        learner.press_and_wait("Place order").await;
        for pane in ["Naive", "Transactional"] {
            assert_eq!(learner.outcomes(pane).await, ["timed out"], "{pane}");
            assert_eq!(
                learner.orders_stored(pane).await,
                1,
                "{pane}: the server finished the work the client gave up on"
            );
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cancellation_preset_leaves_a_claim_behind_on_safe_and_nothing_on_transactional() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Hang up, work cancelled").await;

        for pane in ["Safe", "Transactional"] {
            let text = learner.pane_text(pane).await;
            assert_eq!(learner.orders_stored(pane).await, 0, "{pane}:\n{text}");
            assert!(
                text.contains("dropped the work together with the connection"),
                "{pane}:\n{text}"
            );
            assert!(
                text.contains("stopped: client hung up"),
                "{pane}'s diagram shows the work stopping:\n{text}"
            );
        }
        let safe = learner.outcomes("Safe").await;
        assert_eq!(
            safe.first().map(String::as_str),
            Some("timed out"),
            "{safe:?}"
        );
        assert!(
            safe.iter().any(|o| o == "409"),
            "the abandoned claim answered 409: {safe:?}"
        );
        let transactional = learner.outcomes("Transactional").await;
        assert!(
            transactional.iter().all(|o| o == "timed out"),
            "the uncommitted claim left nothing to answer 409 with: {transactional:?}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_naive_diagram_of_the_concurrent_preset_shows_two_lookups_before_the_first_insert() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Concurrent sends").await;

        // Each of the three requests: looked up, slow part, inserted, saved, answered.
        let rows = eventually(async || {
            let rows = learner.diagram_rows("Naive").await;
            let answered = rows
                .iter()
                .filter(|(_, text)| text.starts_with("answered"))
                .count();
            (answered == 3).then_some(rows)
        })
        .await
        .expect("the diagram shows all three requests answering");
        let first_insert = rows
            .iter()
            .position(|(_, text)| text == "inserted an order")
            .unwrap_or_else(|| panic!("an insert in {rows:#?}"));
        let lookups: Vec<usize> = rows[..first_insert]
            .iter()
            .filter(|(_, text)| text == "looked for the key: none")
            .map(|(lane, _)| *lane)
            .collect();
        assert!(lookups.len() >= 2, "{rows:#?}");
        assert_ne!(lookups[0], lookups[1], "two requests, two lanes: {rows:#?}");

        let transactional = learner.diagram_rows("Transactional").await;
        let claims = transactional
            .iter()
            .filter(|(_, text)| text == "inserted the key: claimed")
            .count();
        assert_eq!(claims, 1, "one claim won: {transactional:#?}");
        assert!(
            transactional
                .iter()
                .any(|(_, text)| text.starts_with("inserting the key failed: UNIQUE")),
            "the others hit the constraint: {transactional:#?}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_pane_shows_the_server_chosen_for_it() {
    within_deadline(async {
        let (_, learner) = open_lab().await;
        let (first, _) = learner.control("First pane").await;
        assert_eq!(first.prop("value").await.unwrap().as_deref(), Some("naive"));
        let (second, _) = learner.control("Second pane").await;
        assert_eq!(
            second.prop("value").await.unwrap().as_deref(),
            Some("transactional")
        );
        let disabled = async |value: &str| {
            let option = first
                .find(Locator::Css(&format!("option[value={value}]")))
                .await
                .unwrap();
            option.prop("disabled").await.unwrap().as_deref() == Some("true")
        };
        assert!(
            disabled("transactional").await,
            "the server the other pane shows cannot be chosen twice"
        );
        assert!(!disabled("safe").await, "Safe is free to choose");

        first.select_by_value("safe").await.expect("choose Safe");
        learner.press_and_wait("Place order").await;
        assert_eq!(learner.orders_stored("Safe").await, 1);
        assert_eq!(learner.orders_stored("Transactional").await, 1);
        assert!(
            learner
                .pane_text("Safe")
                .await
                .contains("three separate statements"),
            "the pane says how its server works"
        );

        // Naive was sent nothing: switching to it shows its own, empty, orders.
        second.select_by_value("naive").await.expect("choose Naive");
        let naive = eventually(async || {
            learner
                .browser
                .find(Locator::XPath(&pane_xpath("Naive")))
                .await
                .ok()
        })
        .await;
        assert!(naive.is_some(), "the second pane now shows Naive");
        assert_eq!(learner.orders_stored("Naive").await, 0);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_the_diagram_folds_into_one_column_and_nothing_is_wider_than_the_screen() {
    within_deadline(async {
        let (_, learner) = open_lab().await;
        learner
            .browser
            .set_window_size(390, 900)
            .await
            .expect("a phone-sized window");

        learner.press_and_wait("Concurrent sends").await;

        let rows = eventually(async || {
            let rows = learner.diagram_rows("Naive").await;
            (rows.iter().filter(|(_, t)| t.contains("answered")).count() == 3).then_some(rows)
        })
        .await
        .expect("the naive diagram shows three answers");
        assert!(
            rows.iter().all(|(_, text)| text.starts_with("Request ")),
            "each step names its request when the lanes fold: {rows:#?}"
        );
        let overflow = learner
            .browser
            .execute(
                "return document.documentElement.scrollWidth - window.innerWidth;",
                vec![],
            )
            .await
            .expect("measure the page");
        assert!(
            overflow.as_i64().is_some_and(|px| px <= 0),
            "the page scrolls sideways by {overflow} px"
        );
    })
    .await;
}
