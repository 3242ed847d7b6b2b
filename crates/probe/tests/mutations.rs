//! Proof that each check catches its bug: the probe against a fake
//! endpoint with one switch per bug class (`fake::Bug`). With every switch
//! off the fake passes every check; with one on, the checks meant for that
//! bug fail, at their level, and no MUST or SHOULD meant for another bug
//! does. This table is the mutation table of `docs/probe.md`.

mod fake;

use fake::Bug;
use probe::{Level, ProbeConfig, Report, Verdict};

/// Each bug, the checks meant to catch it, and their level.
const MUTATIONS: &[(Bug, &[&str], Level)] = &[
    (Bug::CheckThenSet, &[COPIES, ROUNDS], Level::Must),
    (Bug::NeverReplays, &["sequential retry"], Level::Must),
    (
        Bug::ReplaysWithAnotherStatus,
        &["sequential retry"],
        Level::Must,
    ),
    (
        Bug::DropsLocationOnReplay,
        &["a replay carries the first answer"],
        Level::Should,
    ),
    (
        Bug::NoReplayMarker,
        &["a replay says it is one"],
        Level::Advice,
    ),
    (
        Bug::IgnoresTheBody,
        &["same key, different body"],
        Level::Should,
    ),
    (
        Bug::ConflictBeforeFingerprint,
        &["same key, different body, first still running"],
        Level::Advice,
    ),
    (
        Bug::SharesKeysAcrossClients,
        &["one key, two clients"],
        Level::Advice,
    ),
    (
        Bug::SharesKeysAcrossEndpoints,
        &["one key, two endpoints"],
        Level::Advice,
    ),
    (
        Bug::SharesKeysAcrossMethods,
        &["one key, two methods"],
        Level::Advice,
    ),
    (
        Bug::UnreadableRetention,
        &["the key's retention"],
        Level::Advice,
    ),
    (
        Bug::StoresFailures,
        &["a failure before the work: the retry does the work"],
        Level::Advice,
    ),
    (
        Bug::LeavesClaimsStuck,
        &[
            "a failure before the work: the retry is not stuck",
            "a failure after the work: the retry is not stuck",
        ],
        Level::Should,
    ),
    (
        Bug::ForgetsTheKeyOnFailure,
        &["a failure after the work: the work is done once"],
        Level::Must,
    ),
    (Bug::AcceptsAMissingKey, &["missing key"], Level::Should),
    (
        Bug::AcceptsOddKeys,
        &["empty key", "256-character key", "non-ASCII key"],
        Level::Advice,
    ),
];

const COPIES: &str = "8 concurrent copies";
const ROUNDS: &str = "8 copies released together, 20 rounds";

/// Checks a bug may fail besides its own, and why: they are the same bug
/// seen from another side.
fn also_caught_by(bug: Bug) -> &'static [&'static str] {
    match bug {
        // A retry that comes while its abandoned first request still runs,
        // and a changed body that comes while the first still runs, meet
        // the same race.
        Bug::CheckThenSet => &[
            "retry after a dropped connection",
            "same key, different body, first still running",
        ],
        // With nothing stored there is nothing to replay, nor to refuse a
        // changed body with: every request is new work, the retry of a
        // request that failed after its work included.
        Bug::NeverReplays => &[
            "a failure after the work: the work is done once",
            COPIES,
            ROUNDS,
            "a replay carries the first answer",
            "a replay says it is one",
            "retry after a dropped connection",
            "same key, different body",
            "same key, different body, first still running",
        ],
        // The other status is a difference in what the replay carries too.
        Bug::ReplaysWithAnotherStatus => &["a replay carries the first answer"],
        // Ignoring the body, a changed body in flight is told 409 too.
        Bug::IgnoresTheBody => &["same key, different body, first still running"],
        _ => &[],
    }
}

async fn probe_of(bug: Option<Bug>) -> Report {
    let url = fake::start(bug).await;
    let mut config = ProbeConfig::new(url.parse().expect("a URL"));
    config.other_url = Some(url.replace("/orders", "/other").parse().expect("a URL"));
    config.other_method = Some(reqwest::Method::PATCH);
    config.race_delay_ms = 200;
    config.rounds = 20;
    config.fail_header = Some(("Fail".into(), "before".into()));
    config.fail_after_header = Some(("Fail".into(), "after".into()));
    config.count_url = Some(url.parse().expect("a URL"));
    // Short, so a stuck claim costs the test a second, not half a minute.
    config.stuck_after = std::time::Duration::from_secs(1);
    config.client_headers = vec![
        ("Lab-Secret".into(), "client-a-secret-0001".into()),
        ("Lab-Secret".into(), "client-b-secret-0002".into()),
    ];
    probe::run(&config).await.expect("the probe runs")
}

fn failed(report: &Report) -> Vec<&str> {
    report
        .scenarios
        .iter()
        .filter(|check| check.verdict == Verdict::Fail)
        .map(|check| check.scenario.as_str())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_fake_without_a_bug_passes_every_check() {
    let report = probe_of(None).await;
    let not_passed: Vec<_> = report
        .scenarios
        .iter()
        .filter(|check| check.verdict != Verdict::Pass)
        .collect();
    assert!(not_passed.is_empty(), "{not_passed:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn each_bug_alone_is_caught_by_the_checks_meant_for_it_at_their_level() {
    for &(bug, meant, level) in MUTATIONS {
        let report = probe_of(Some(bug)).await;
        let failed = failed(&report);
        for check in meant {
            let found = report
                .scenarios
                .iter()
                .find(|c| c.scenario == *check)
                .unwrap_or_else(|| panic!("{bug:?}: no check {check:?}"));
            assert_eq!(
                found.verdict,
                Verdict::Fail,
                "{bug:?} not caught by {check:?}: {found:#?}"
            );
            assert_eq!(found.level, level, "{bug:?}: {check:?}");
        }
        let unexpected: Vec<_> = failed
            .iter()
            .filter(|check| !meant.contains(check) && !also_caught_by(bug).contains(check))
            .collect();
        assert!(
            unexpected.is_empty(),
            "{bug:?} also failed {unexpected:?}, meant for other bugs:\n{}",
            report.to_table()
        );
        let must_failed = report.failed_must > 0;
        assert_eq!(
            report.exit_code(Level::Must) == 1,
            must_failed,
            "{bug:?}: the exit status follows the MUST failures"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn without_a_count_only_a_replay_tells_a_failure_after_the_work_was_done_once() {
    const CHECK: &str = "a failure after the work: the work is done once";
    for (bug, verdict, says) in [
        (
            None,
            Verdict::Pass,
            "the first request's resource, replayed",
        ),
        (
            Some(Bug::StoresFailures),
            Verdict::Pass,
            "the failure replayed",
        ),
        (
            Some(Bug::ForgetsTheKeyOnFailure),
            Verdict::NotApplicable,
            "Give --count-url",
        ),
    ] {
        let url = fake::start(bug).await;
        let mut config = ProbeConfig::new(url.parse().expect("a URL"));
        config.fail_after_header = Some(("Fail".into(), "after".into()));
        let report = probe::run(&config).await.expect("the probe runs");
        let check = report
            .scenarios
            .iter()
            .find(|check| check.scenario == CHECK)
            .expect("the check is made");
        assert_eq!(check.verdict, verdict, "{bug:?}: {check:#?}");
        assert!(check.observed.contains(says), "{bug:?}: {check:#?}");
    }
}
