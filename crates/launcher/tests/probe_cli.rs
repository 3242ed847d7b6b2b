//! `idempotency-lab probe` run as a program against real servers.

use std::process::Output;

use lab_e2e::{Backend, spawn_server};
use locked_server::LockedServer;
use naive_server::NaiveServer;
use probe::{Level, Report, Verdict};
use safe_server::SafeServer;

/// How many checks the probe makes: eleven experiments, the sequential
/// retry graded three times (the same resource, the same answer, marked a
/// replay) and the concurrent one twice (one resource, what the other
/// copies were told).
const CHECKS: usize = 14;

/// Rounds of copies released together, in every run here: fast (a few
/// milliseconds each), and the naive server races in nearly all of them.
const ROUNDS: &str = "20";

/// Runs the real binary with `args` (off the async runtime, since it blocks).
async fn idempotency_lab(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_idempotency-lab"))
            .args(args)
            .output()
            .expect("the binary runs")
    })
    .await
    .expect("the blocking task finishes")
}

fn probe_args(url: &str, lab_secret: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "probe",
        "--url",
        url,
        "--header",
        &format!("Lab-Secret: {lab_secret}"),
    ]
    .into_iter()
    .map(str::to_owned)
    .collect::<Vec<_>>();
    args.extend(["--race-delay-ms", "200", "--rounds", ROUNDS].map(str::to_owned));
    // Two clients: this lab, and another lab of its own (a lab is the
    // lab's notion of a client).
    let other_lab = format!("probe-client-b-{}", uuid::Uuid::new_v4().simple());
    for identity in [lab_secret.to_owned(), other_lab] {
        args.extend([
            "--client-header".to_owned(),
            format!("Lab-Secret: {identity}"),
        ]);
    }
    args.extend(extra.iter().map(|arg| (*arg).to_owned()));
    args
}

/// The table's rows as (result, scenario), read back from its text.
fn table_rows(table: &str, report: &Report) -> Vec<(String, String)> {
    report
        .scenarios
        .iter()
        .map(|scenario| {
            let line = table
                .lines()
                .find(|line| {
                    line.split("  ")
                        .map(str::trim)
                        .any(|cell| cell == scenario.scenario)
                })
                .unwrap_or_else(|| {
                    panic!("the table has a row for {:?}:\n{table}", scenario.scenario)
                });
            (
                line.split_whitespace().next().unwrap().to_owned(),
                scenario.scenario.clone(),
            )
        })
        .collect()
}

fn label(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "pass",
        Verdict::Fail => "FAIL",
        Verdict::NotApplicable => "n/a",
    }
}

/// One probe run that prints its table and saves its JSON report
/// (`--json FILE`), so both describe the very same requests.
async fn probe_both_ways(url: &str, lab: &str) -> (Output, String, Report) {
    let file = std::env::temp_dir().join(format!("probe-{}.json", uuid::Uuid::new_v4()));
    let path = file.to_str().expect("a UTF-8 temp path").to_owned();
    let output = idempotency_lab(probe_args(url, lab, &["--json", &path])).await;
    let saved = std::fs::read(&file).expect("--json FILE saves the report");
    let _ = std::fs::remove_file(&file);
    let report: Report = serde_json::from_slice(&saved).expect("the saved report is JSON");
    let text = String::from_utf8(output.stdout.clone()).unwrap();
    (output, text, report)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_probe_reports_the_race_and_the_silent_replay_of_the_naive_server() {
    let server = spawn_server::<NaiveServer>(Backend::Sqlite).await;

    let (output, table, report) = probe_both_ways(&server.orders_url, &server.secret).await;

    assert_eq!(
        output.status.code(),
        Some(1),
        "a failed scenario makes the exit status 1:\n{table}"
    );
    let race = report
        .scenarios
        .iter()
        .find(|s| s.scenario == "8 concurrent copies")
        .expect("a race scenario");
    assert_eq!(race.verdict, Verdict::Fail, "{race:?}");
    assert_eq!(
        race.level,
        Level::Must,
        "a race breaks the header's promise"
    );
    assert!(
        race.observed.contains("check-then-insert race"),
        "says why: {race:?}"
    );
    let reuse = report
        .scenarios
        .iter()
        .find(|s| s.scenario == "same key, different body")
        .unwrap();
    assert_eq!(reuse.verdict, Verdict::Fail);
    assert_eq!(reuse.level, Level::Should);
    assert!(reuse.reference.contains("Error Scenarios"), "{reuse:?}");
    assert!(
        reuse
            .observed
            .contains("silently answered with the first request's resource"),
        "{reuse:?}"
    );
    for replay_check in [
        "a replay carries the first answer",
        "a replay says it is one",
    ] {
        let check = report
            .scenarios
            .iter()
            .find(|s| s.scenario == replay_check)
            .unwrap_or_else(|| panic!("a check {replay_check:?}"));
        assert_eq!(
            check.verdict,
            Verdict::Pass,
            "the naive server replays well: {check:?}"
        );
    }
    let sequential = report
        .scenarios
        .iter()
        .find(|s| s.scenario == "sequential retry")
        .unwrap();
    assert_eq!(
        sequential.verdict,
        Verdict::Pass,
        "sequential retries are what the naive server does handle"
    );
    let rows = table_rows(&table, &report);
    assert_eq!(rows.len(), CHECKS, "a row for every check:\n{table}");
    for (result, scenario) in rows {
        let json = report
            .scenarios
            .iter()
            .find(|s| s.scenario == scenario)
            .unwrap();
        assert_eq!(
            result,
            label(json.verdict),
            "table and JSON agree on {scenario:?}"
        );
    }
    assert!(
        table.contains("FAIL    MUST    8 concurrent copies"),
        "{table}"
    );
    // The race always; on some runs also the retry of a dropped connection,
    // which the naive server may take for a new order while the first still runs.
    assert_eq!(report.failed_should, 1, "{table}");
    let advice = report.failed - report.failed_must - report.failed_should;
    assert_eq!(
        advice, 1,
        "a changed body in flight makes a second order:\n{table}"
    );
    assert!(
        table.contains(&format!("{} MUST, 1 SHOULD, 1 advice", report.failed_must)),
        "the summary counts the failures by level:\n{table}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_alone_prints_the_report_instead_of_the_table() {
    let server = spawn_server::<SafeServer>(Backend::Sqlite).await;

    let output = idempotency_lab(probe_args(&server.orders_url, &server.secret, &["--json"])).await;

    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: Report = serde_json::from_str(&stdout).expect("--json prints only a report");
    assert_eq!(report.scenarios.len(), CHECKS);
    assert_eq!(output.status.code(), Some(report.exit_code(Level::Must)));
    assert!(!stdout.contains("probe summary"), "no table: {stdout}");
}

async fn every_scenario_passes_against_the_safe_server(backend: Backend) {
    let server = spawn_server::<SafeServer>(backend).await;

    let (output, table, report) = probe_both_ways(&server.orders_url, &server.secret).await;

    assert_eq!(output.status.code(), Some(0), "{table}");
    assert_eq!(report.scenarios.len(), CHECKS);
    assert!(
        report.scenarios.iter().all(|s| s.verdict == Verdict::Pass),
        "{table}"
    );
    assert_eq!((report.passed, report.failed), (CHECKS, 0));
    for (result, _) in table_rows(&table, &report) {
        assert_eq!(result, "pass");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_scenario_passes_against_the_safe_server_on_sqlite() {
    every_scenario_passes_against_the_safe_server(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_scenario_passes_against_the_safe_server_on_postgres() {
    every_scenario_passes_against_the_safe_server(Backend::Postgres).await;
}

/// The in-process lock closes the race (one process here) but its naive
/// flow replays the first order for a changed body: a SHOULD broken, no
/// MUST. The exit status follows `--fail-on`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fail_on_sets_which_failures_fail_the_run() {
    let server = spawn_server::<LockedServer>(Backend::Sqlite).await;
    let url = &server.orders_url;

    let by_default = idempotency_lab(probe_args(url, &server.secret, &["--json"])).await;
    let report: Report = serde_json::from_slice(&by_default.stdout).expect("a report");
    assert_eq!(
        (report.failed_must, report.failed_should),
        (0, 1),
        "{report:#?}"
    );
    assert_eq!(
        by_default.status.code(),
        Some(0),
        "a SHOULD alone passes by default"
    );

    let strict = idempotency_lab(probe_args(url, &server.secret, &["--fail-on", "should"])).await;
    assert_eq!(strict.status.code(), Some(1), "--fail-on should fails it");

    let nonsense = idempotency_lab(probe_args(url, &server.secret, &["--fail-on", "may"])).await;
    assert_eq!(
        nonsense.status.code(),
        Some(2),
        "an unknown level is a usage error"
    );
}

/// Without any delay header, copies whose last bytes arrive together
/// still meet in the naive server's check-then-insert, and the safe server
/// still keeps one order per round.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copies_released_together_find_the_naive_race_without_a_delay_header() {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        for naive in [true, false] {
            let server = if naive {
                spawn_server::<NaiveServer>(backend).await
            } else {
                spawn_server::<SafeServer>(backend).await
            };
            let args = [
                "probe",
                "--url",
                &server.orders_url,
                "--header",
                &format!("Lab-Secret: {}", server.secret),
                "--rounds",
                ROUNDS,
                "--json",
            ]
            .map(str::to_owned)
            .to_vec();
            let output = idempotency_lab(args).await;
            let report: Report = serde_json::from_slice(&output.stdout).expect("a report");
            let rounds = report
                .scenarios
                .iter()
                .find(|s| s.scenario == format!("8 copies released together, {ROUNDS} rounds"))
                .expect("the rounds check");
            assert_eq!(rounds.level, Level::Must);
            if naive {
                assert_eq!(rounds.verdict, Verdict::Fail, "{backend:?}: {rounds:?}");
                assert!(
                    rounds.observed.contains("check-then-insert race"),
                    "{rounds:?}"
                );
            } else {
                assert_eq!(rounds.verdict, Verdict::Pass, "{backend:?}: {rounds:?}");
            }
        }
    }
}

/// The JUnit XML a CI server reads: `(name, failed)` per test case.
fn junit_cases(xml: &str) -> Vec<(String, bool)> {
    let document = roxmltree::Document::parse(xml).expect("valid XML");
    document
        .descendants()
        .filter(|node| node.has_tag_name("testcase"))
        .map(|case| {
            let name = case.attribute("name").expect("a named case").to_owned();
            let failed = case.children().any(|child| child.has_tag_name("failure"));
            (name, failed)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn junit_output_has_one_case_per_check_failing_those_at_the_fail_on_level() {
    let server = spawn_server::<LockedServer>(Backend::Sqlite).await;
    for (fail_on, failing) in [
        ("must", vec![]),
        ("should", vec!["[SHOULD] same key, different body"]),
    ] {
        let file = std::env::temp_dir().join(format!("probe-{}.xml", uuid::Uuid::new_v4()));
        let path = file.to_str().expect("a UTF-8 temp path").to_owned();
        let extra = ["--fail-on", fail_on, "--junit", &path];
        let output = idempotency_lab(probe_args(&server.orders_url, &server.secret, &extra)).await;
        let xml = std::fs::read_to_string(&file).expect("--junit FILE saves the XML");
        let _ = std::fs::remove_file(&file);

        let cases = junit_cases(&xml);
        assert_eq!(cases.len(), CHECKS, "one case per check:\n{xml}");
        assert!(
            cases
                .iter()
                .any(|(name, _)| name == "[MUST] 8 concurrent copies"),
            "{xml}"
        );
        let failed: Vec<&str> = cases
            .iter()
            .filter(|(_, failed)| *failed)
            .map(|(name, _)| name.as_str())
            .collect();
        assert_eq!(failed, failing, "--fail-on {fail_on}:\n{xml}");
        let expected_exit = if failing.is_empty() { 0 } else { 1 };
        assert_eq!(
            output.status.code(),
            Some(expected_exit),
            "--fail-on {fail_on}"
        );
    }
}

#[tokio::test]
async fn a_probe_that_cannot_run_exits_with_2_and_says_why() {
    let unreachable = idempotency_lab(probe_args("http://127.0.0.1:9/orders", "x", &[])).await;
    assert_eq!(unreachable.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&unreachable.stderr).contains("did not accept an ordinary request")
    );

    let bad_header = idempotency_lab(probe_args(
        "http://127.0.0.1:9/orders",
        "x",
        &["--header", "nonsense"],
    ))
    .await;
    assert_eq!(bad_header.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_header.stderr).contains("invalid header"));

    let bad_body = idempotency_lab(probe_args(
        "http://127.0.0.1:9/orders",
        "x",
        &["--body", "{oops"],
    ))
    .await;
    assert_eq!(bad_body.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_body.stderr).contains("--body is not JSON"));
}
