//! `idempotency-lab probe --webhook URL --secret …` run as a program
//! against the lab's own receivers: the naive one makes an effect per
//! delivery and fails the MUSTs, the inbox passes every check.

use lab_e2e::Backend;
use lab_e2e::receiving::Receiving;
use lab_wire::webhook::ReceiverDesign;
use probe::{Level, Report, Verdict};

#[allow(
    dead_code,
    reason = "shared by the probe's tests; this one only runs the binary"
)]
mod probe_support;

use probe_support::idempotency_lab;

/// Probes `receiver` of a new lab over `backend`; the exit status, the
/// printed table and the JSON report.
async fn probe(backend: Backend, receiver: ReceiverDesign) -> (Option<i32>, String, Report) {
    let lab = Receiving::open(backend).await;
    let secret = lab.endpoints().await.secret;
    let file = std::env::temp_dir().join(format!("probe-{}.json", uuid::Uuid::new_v4()));
    let path = file.to_str().expect("a UTF-8 temp path").to_owned();
    let args = [
        "probe",
        "--webhook",
        &lab.webhook_url(receiver),
        "--secret",
        &secret,
        "--json",
        &path,
    ];
    let output = idempotency_lab(args.map(str::to_owned).to_vec()).await;
    let report: Report =
        serde_json::from_slice(&std::fs::read(&file).expect("the report is saved"))
            .expect("the report is JSON");
    let _ = std::fs::remove_file(&file);
    let table = String::from_utf8(output.stdout).unwrap();
    (output.status.code(), table, report)
}

fn verdict(report: &Report, scenario: &str) -> (Verdict, Level, String) {
    let found = report
        .scenarios
        .iter()
        .find(|s| s.scenario == scenario)
        .unwrap_or_else(|| panic!("no check {scenario:?} in {report:?}"));
    (found.verdict, found.level, found.observed.clone())
}

async fn the_inbox_passes_every_check_and_the_naive_receiver_fails_the_musts(backend: Backend) {
    let (status, table, report) = probe(backend, ReceiverDesign::Inbox).await;
    assert_eq!(status, Some(0), "{table}");
    assert_eq!((report.passed, report.failed), (5, 0), "{table}");
    assert!(
        table.contains("pass    MUST    delivered twice at once"),
        "{table}"
    );

    let (status, table, report) = probe(backend, ReceiverDesign::Naive).await;
    assert_eq!(status, Some(1), "a failed MUST fails the run: {table}");
    let (sequence, level, observed) = verdict(&report, "delivered again in sequence");
    assert_eq!((sequence, level), (Verdict::Fail, Level::Must));
    assert!(
        observed.contains("answered 200, 200; 2 effects"),
        "{observed}"
    );
    let (at_once, _, observed) = verdict(&report, "delivered twice at once");
    assert_eq!(at_once, Verdict::Fail, "{observed}");
    for check in [
        "a processed duplicate acknowledged",
        "signed with another secret",
        "replayed an hour later",
    ] {
        let (passed, _, observed) = verdict(&report, check);
        assert_eq!(passed, Verdict::Pass, "{check}: {observed}");
    }
    let (_, _, forged) = verdict(&report, "signed with another secret");
    assert!(forged.contains("answered 401; 0 effects"), "{forged}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inbox_passes_every_check_and_the_naive_receiver_fails_the_musts_on_sqlite() {
    the_inbox_passes_every_check_and_the_naive_receiver_fails_the_musts(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inbox_passes_every_check_and_the_naive_receiver_fails_the_musts_on_postgres() {
    the_inbox_passes_every_check_and_the_naive_receiver_fails_the_musts(Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_probe_with_a_wrong_secret_or_without_one_cannot_run() {
    let lab = Receiving::open(Backend::Sqlite).await;
    let url = lab.webhook_url(ReceiverDesign::Inbox);
    let other = lab.another_lab().endpoints().await.secret;
    for (args, says) in [
        (
            vec!["probe", "--webhook", &url, "--secret", &other],
            "check --webhook and --secret",
        ),
        (
            vec!["probe", "--webhook", &url, "--secret", "nonsense"],
            "--secret",
        ),
    ] {
        let output = idempotency_lab(args.iter().map(|a| a.to_string()).collect()).await;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
    }
    let output = idempotency_lab(vec!["probe".into(), "--webhook".into(), url]).await;
    assert_eq!(
        output.status.code(),
        Some(2),
        "clap refuses --webhook without --secret"
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("--secret"));
}
