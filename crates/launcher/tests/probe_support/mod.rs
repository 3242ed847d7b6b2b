//! What the probe's command-line tests share: running the real binary,
//! and the arguments every run here gives it.

use std::process::Output;

/// How many checks the probe makes: fifteen experiments, the sequential
/// retry graded four times (the same resource, the same answer, marked a
/// replay, the key's retention), the concurrent one twice (one resource, what the other copies
/// were told) and each failure twice (the retry not stuck; done once, or
/// the retry doing the work).
pub const CHECKS: usize = 21;

/// The lab's failure hook after the work (an extra argument: without it
/// the check of a failure after the work says "not applicable").
pub const FAIL_AFTER: [&str; 2] = ["--fail-after-header", "Lab-Fault: error-after-create"];

/// Rounds of copies released together, in every run here: fast (a few
/// milliseconds each), and the naive server races in nearly all of them.
pub const ROUNDS: &str = "20";

/// Runs the real binary with `args` (off the async runtime, since it blocks).
pub async fn idempotency_lab(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_idempotency-lab"))
            .args(args)
            .output()
            .expect("the binary runs")
    })
    .await
    .expect("the blocking task finishes")
}

pub fn probe_args(url: &str, lab_secret: &str, extra: &[&str]) -> Vec<String> {
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
    // The lab's failure hook before the work, and its listing of the lab's
    // orders to count.
    args.extend(
        [
            "--fail-header",
            "Lab-Fault: error-before-create",
            "--count-url",
            url,
        ]
        .map(str::to_owned),
    );
    args.extend(extra.iter().map(|arg| (*arg).to_owned()));
    args
}
