//! `cargo xtask lighthouse`: what the page costs a learner, measured the
//! way `docs/benchmarks.md` reports it. It builds the page and the lab
//! (release), starts the lab on a port of its own over a fresh SQLite
//! file, saves one run for a permalink, and then:
//!
//! - runs Lighthouse 12 (npm, into `target/tools/lighthouse`, with
//!   Debian's Chromium) on the learner's page and on the run viewer, in its
//!   default mobile profile (simulated slow 4G, 4× CPU slowdown), and prints
//!   the scores, the paints and the bytes transferred;
//! - loads each page twice in Chromium (`page_visits.cjs`) and prints the
//!   bytes that crossed the network on the first visit and on the second.
//!
//! A benchmark to read, never a test: the machine's load moves the numbers.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::shell::{Checked, cargo, command, say, step};
use crate::{page_build, tools};

/// Lighthouse from npm: 12 is what `docs/benchmarks.md` reports.
const LIGHTHOUSE_VERSION: &str = "12.8.2";
/// The teacher's token of the measured lab (it runs on loopback only).
const TOKEN: &str = "lighthouse-benchmark-token";

/// Builds, starts and measures; prints one table per page.
pub fn run(root: &Path) -> Result<()> {
    let total = 4;
    step(
        1,
        total,
        "Checking the tools: the page's, Chromium and Lighthouse",
    );
    tools::ensure_page_tools(root)?;
    tools::ensure_chromium()?;
    let lighthouse = ensure_lighthouse(root)?;
    step(2, total, "Building the page and the lab (release)");
    page_build::build_page(root)?;
    cargo(&["build", "--release", "--package", "launcher"])?;

    step(
        3,
        total,
        "Starting the lab on a port of its own, with one saved run",
    );
    let lab = Lab::start(root)?;
    let run = lab.save_a_run()?;
    // Each page, and what it shows once its app has started.
    let pages = [
        ("learner's page", format!("{}/", lab.base), "#place-order"),
        (
            "run viewer",
            format!("{}{run}", lab.base),
            "main[data-run=found]",
        ),
    ];

    step(
        4,
        total,
        "Measuring each page: Lighthouse (mobile), then two visits in Chromium",
    );
    for (name, url, ready) in &pages {
        let report = lighthouse_report(root, &lighthouse, url)?;
        print_lighthouse(name, &report);
        let visits = page_visits(root, url, ready)?;
        say(&format!(
            "{name}: first visit {:.1} KB over the network, second visit {:.1} KB",
            visits.0 / 1000.0,
            visits.1 / 1000.0
        ));
    }
    Ok(())
}

/// Lighthouse's own program, installed from npm if missing.
fn ensure_lighthouse(root: &Path) -> Result<PathBuf> {
    let dir = root.join("target/tools/lighthouse");
    let program = dir.join("node_modules/.bin/lighthouse");
    tools::ensure_npm_tool(
        &program,
        LIGHTHOUSE_VERSION,
        &dir,
        &format!("lighthouse@{LIGHTHOUSE_VERSION}"),
    )?;
    Ok(program)
}

/// The lab, running from its release build until dropped.
struct Lab {
    process: Child,
    base: String,
    _dir: TempDir,
}

/// A folder of its own, removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

impl Lab {
    fn start(root: &Path) -> Result<Self> {
        let dir =
            TempDir(std::env::temp_dir().join(format!("lab-lighthouse-{}", std::process::id())));
        std::fs::create_dir_all(&dir.0)?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let mut process = command(root.join("target/release/idempotency-lab"))
            .args(["--addr", &format!("127.0.0.1:{port}")])
            .arg("--database-url")
            .arg(format!("sqlite://{}", dir.0.join("lab.db").display()))
            .args(["--teacher-token", TOKEN])
            .arg("--ui-dir")
            .arg(root.join("dist"))
            .stdout(Stdio::piped())
            .spawn()
            .context("cannot start the lab")?;
        // Up is what the lab says when it is: its first line.
        let stdout = process.stdout.take().context("the lab's output")?;
        let mut lines = BufReader::new(stdout).lines();
        let first = lines.next().transpose()?.unwrap_or_default();
        // Keep reading, so the lab never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        let lab = Self {
            process,
            base: format!("http://127.0.0.1:{port}"),
            _dir: dir,
        };
        if !first.contains("is running") {
            bail!("the lab did not start on {}: {first}", lab.base);
        }
        Ok(lab)
    }

    /// Saves a run of two panes, as the page records one, and returns its permalink.
    fn save_a_run(&self) -> Result<String> {
        let secret = "lighthouse-measuring-lab";
        let order = |n: u32| {
            serde_json::json!({
                "id": format!("00000000-0000-4000-8000-{n:012}"), "item": "coffee",
                "amount_cents": 450, "idempotency_key": "k1",
                "created_at": "2026-12-06T10:00:00.123456Z"
            })
        };
        let step = |seq: u64, kind: Value| serde_json::json!({"seq": seq, "request": 1, "key": "k1", "at_us": 1_796_205_600_000_000_i64 + seq as i64 * 1000, "kind": kind});
        let pane = |server: &str, orders: u32| {
            serde_json::json!({
                "server": server,
                "attempts": [{"copy": 1, "number": 1, "key": "k1", "started_ms": 0.0, "ended_ms": 310.0, "outcome": "created"}],
                "steps": [
                    step(1, serde_json::json!({"step": "key-looked-up", "found": "nothing"})),
                    step(2, serde_json::json!({"step": "order-inserted"})),
                    step(3, serde_json::json!({"step": "answered", "status": 201, "replayed": false})),
                ],
                "steps_missed": 0,
                "orders": (1..=orders).map(order).collect::<Vec<_>>(),
                "orders_of_run": orders
            })
        };
        let record = serde_json::json!({
            "order": {"item": "coffee", "amount_cents": 450},
            "policy": {"copies": 1, "retries": 2, "timeout_ms": 0, "backoff_ms": 300,
                "new_key_per_attempt": false, "no_key": false, "read_only": false,
                "drop_response": false, "crash_after_create": false, "change_order_on_retry": false,
                "key_retention_secs": 0, "lock_timeout_secs": 0, "cancel_on_disconnect": false,
                "server_delay_ms": 0},
            "lesson_step": null,
            "panes": [pane("naive", 2), pane("transactional", 1)]
        });
        let saved = curl(&[
            "-sf",
            "-H",
            "content-type: application/json",
            "-H",
            &format!("lab-secret: {secret}"),
            "--data",
            &record.to_string(),
            &format!("{}/api/runs", self.base),
        ])
        .context("the lab did not save the run")?;
        let saved: Value = serde_json::from_str(&saved)?;
        saved["url"]
            .as_str()
            .map(str::to_owned)
            .context("the saved run has a link")
    }
}

fn curl(args: &[&str]) -> Option<String> {
    command("curl").args(args).output_text()
}

/// The Chromium flags that work on these machines, as root and offline.
const CHROMIUM_FLAGS: &str = "--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --disable-background-networking --disable-component-update --disable-sync --no-first-run";

/// Lighthouse's JSON report of `url` (mobile, its default).
fn lighthouse_report(root: &Path, lighthouse: &Path, url: &str) -> Result<Value> {
    let out = root.join("target/tools/lighthouse/report.json");
    command(lighthouse)
        .arg(url)
        .args([
            "--quiet",
            "--output=json",
            "--only-categories=performance,accessibility,best-practices",
        ])
        .arg(format!("--output-path={}", out.display()))
        .arg(format!("--chrome-flags={CHROMIUM_FLAGS}"))
        .env("CHROME_PATH", tools::CHROMIUM)
        .checked()?;
    Ok(serde_json::from_str(&std::fs::read_to_string(&out)?)?)
}

fn print_lighthouse(name: &str, report: &Value) {
    let score = |category: &str| {
        report["categories"][category]["score"]
            .as_f64()
            .map_or("—".to_owned(), |s| format!("{:.0}", s * 100.0))
    };
    let audit = |id: &str| {
        report["audits"][id]["numericValue"]
            .as_f64()
            .unwrap_or(f64::NAN)
    };
    say(&format!(
        "{name}: Lighthouse mobile performance {}, accessibility {}, best practices {}",
        score("performance"),
        score("accessibility"),
        score("best-practices")
    ));
    say(&format!(
        "{name}: first contentful paint {:.2} s, largest contentful paint {:.2} s, speed index {:.2} s, total blocking time {:.0} ms, layout shift {:.3}, {:.1} KB transferred",
        audit("first-contentful-paint") / 1000.0,
        audit("largest-contentful-paint") / 1000.0,
        audit("speed-index") / 1000.0,
        audit("total-blocking-time"),
        audit("cumulative-layout-shift"),
        audit("total-byte-weight") / 1000.0,
    ));
}

/// Bytes over the network for a first and a second visit of `url`.
fn page_visits(root: &Path, url: &str, ready: &str) -> Result<(f64, f64)> {
    let script = root.join("xtask/src/page_visits.cjs");
    let output = command("node")
        .arg(&script)
        .args([url, ready])
        .env(
            "NODE_PATH",
            root.join("target/tools/lighthouse/node_modules"),
        )
        .env("CHROMIUM", tools::CHROMIUM)
        .env("CHROMIUM_FLAGS", CHROMIUM_FLAGS)
        .output_text()
        .context("page_visits.cjs failed")?;
    let visits: Value = serde_json::from_str(output.trim())?;
    Ok((
        visits["first"].as_f64().unwrap_or(f64::NAN),
        visits["second"].as_f64().unwrap_or(f64::NAN),
    ))
}
