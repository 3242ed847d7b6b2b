//! `idempotency-lab probe` run as a program against real servers.

use std::process::Output;

use lab_e2e::{Backend, spawn_server};
use naive_server::NaiveServer;
use onetrip_server::OneTripServer;
use probe::{Level, Report, Verdict};
use safe_server::SafeServer;
use transactional_server::TransactionalServer;

mod probe_support;

use probe_support::{CHECKS, FAIL_AFTER, ROUNDS, idempotency_lab, probe_args};

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
async fn probe_both_ways(url: &str, lab: &str, extra: &[&str]) -> (Output, String, Report) {
    let file = std::env::temp_dir().join(format!("probe-{}.json", uuid::Uuid::new_v4()));
    let path = file.to_str().expect("a UTF-8 temp path").to_owned();
    let mut extra = extra.to_vec();
    extra.extend(["--json", &path]);
    let output = idempotency_lab(probe_args(url, lab, &extra)).await;
    let saved = std::fs::read(&file).expect("--json FILE saves the report");
    let _ = std::fs::remove_file(&file);
    let report: Report = serde_json::from_slice(&saved).expect("the saved report is JSON");
    let text = String::from_utf8(output.stdout.clone()).unwrap();
    (output, text, report)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_probe_reports_the_race_and_the_silent_replay_of_the_naive_server() {
    let server = spawn_server::<NaiveServer>(Backend::Sqlite).await;

    let (output, table, report) =
        probe_both_ways(&server.orders_url, &server.secret, &FAIL_AFTER).await;

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
    let failed_after_the_work = report
        .scenarios
        .iter()
        .find(|s| s.scenario == "a failure after the work: the work is done once")
        .unwrap();
    assert_eq!(failed_after_the_work.verdict, Verdict::Fail);
    assert!(
        failed_after_the_work
            .observed
            .contains("listed since: 2 (two resources or more: the work was done again)"),
        "the order stays without its key, and the retry orders again: {failed_after_the_work:?}"
    );
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

async fn every_check_passes_against<S: lab_core::OrderServer>(backend: Backend) {
    let server = spawn_server::<S>(backend).await;
    // Another endpoint of the same "service": another design's server,
    // whose keys are its own.
    let other = spawn_server::<NaiveServer>(backend).await;

    let (output, table, report) = probe_both_ways(
        &server.orders_url,
        &server.secret,
        &[
            &["--other-url", &other.orders_url, "--other-method", "patch"][..],
            &FAIL_AFTER,
        ]
        .concat(),
    )
    .await;

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
    every_check_passes_against::<SafeServer>(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_scenario_passes_against_the_safe_server_on_postgres() {
    every_check_passes_against::<SafeServer>(Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_scenario_passes_against_the_transactional_server_on_sqlite() {
    every_check_passes_against::<TransactionalServer>(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_scenario_passes_against_the_transactional_server_on_postgres() {
    every_check_passes_against::<TransactionalServer>(Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_scenario_passes_against_the_one_trip_server_on_sqlite() {
    every_check_passes_against::<OneTripServer>(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_scenario_passes_against_the_one_trip_server_on_postgres() {
    every_check_passes_against::<OneTripServer>(Backend::Postgres).await;
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
