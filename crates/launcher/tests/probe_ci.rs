//! `idempotency-lab probe` in a CI job: the exit status `--fail-on` sets,
//! and the JUnit XML `--junit FILE` saves, read back as a CI server would.

use lab_e2e::{Backend, spawn_server};
use locked_server::LockedServer;
use probe::Report;

mod probe_support;

use probe_support::{CHECKS, FAIL_AFTER, idempotency_lab, probe_args};

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

    // The lock is the process's: it remembers nothing once a request that
    // did its work has failed, and the retry orders again.
    let after = idempotency_lab(probe_args(url, &server.secret, &FAIL_AFTER)).await;
    assert_eq!(
        after.status.code(),
        Some(1),
        "with the failure after the work, a MUST fails"
    );

    let nonsense = idempotency_lab(probe_args(url, &server.secret, &["--fail-on", "may"])).await;
    assert_eq!(
        nonsense.status.code(),
        Some(2),
        "an unknown level is a usage error"
    );
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
