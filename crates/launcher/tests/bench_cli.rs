//! `idempotency-lab bench --quick` run as a program: it runs, counts the
//! orders right, and shows duplicates for naive and none for safe. Speed is
//! printed, never asserted.

use std::process::Command;

use serde_json::Value;

fn cells<'a>(report: &'a Value, workload: &str, target_prefix: &str) -> Vec<&'a Value> {
    report["results"]
        .as_array()
        .expect("a results array")
        .iter()
        .filter(|cell| {
            cell["workload"] == workload
                && cell["target"].as_str().unwrap().starts_with(target_prefix)
        })
        .collect()
}

fn number(cell: &Value, field: &str) -> u64 {
    cell[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{field} in {cell}"))
}

/// The test database's URL.
fn postgres_url() -> String {
    std::env::var("TEST_DATABASE_URL")
        .unwrap_or_else(|_| lab_e2e::backend::DEFAULT_TEST_DATABASE_URL.to_owned())
}

/// Runs `idempotency-lab bench` with `args`, which must succeed; its standard output.
fn bench(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_idempotency-lab"))
        .arg("bench")
        .args(args)
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[test]
fn a_quick_bench_counts_orders_and_shows_naive_duplicates_on_both_storages() {
    let json_file = std::env::temp_dir().join(format!("bench-{}.json", uuid::Uuid::new_v4()));
    let csv_file = json_file.with_extension("csv");
    let (json, csv) = (
        json_file.display().to_string(),
        csv_file.display().to_string(),
    );
    let postgres = postgres_url();
    let stdout = bench(&[
        "--quick",
        "--postgres-url",
        &postgres,
        "--json",
        &json,
        "--csv",
        &csv,
    ]);
    assert!(
        stdout.contains("| storage | workload |"),
        "prints the table:\n{stdout}"
    );
    assert!(stdout.contains("Goals:"), "prints the goals:\n{stdout}");

    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
    let all = report["results"].as_array().unwrap();
    assert_eq!(
        all.len(),
        2 * 2 * 2 * 8,
        "2 storages × 2 workloads × 2 levels × 8 targets"
    );
    assert_eq!(
        std::fs::read_to_string(&csv_file).unwrap().lines().count(),
        all.len() + 1
    );
    for storage in ["sqlite", "postgres"] {
        assert!(
            all.iter().any(|cell| cell["storage"] == storage),
            "{storage} was measured"
        );
    }

    for cell in all {
        assert_eq!(number(cell, "errors"), 0, "{cell}");
        assert!(
            cell["requests_per_second"].as_f64().unwrap() > 0.0,
            "{cell}"
        );
    }
    for cell in cells(&report, "unique", "") {
        assert_eq!(
            number(cell, "orders"),
            number(cell, "requests"),
            "one order per unique key: {cell}"
        );
        assert_eq!(number(cell, "duplicates"), 0, "{cell}");
    }
    let safe_designs = [
        cells(&report, "dup×4", "safe"),
        cells(&report, "dup×4", "transactional"),
        cells(&report, "dup×4", "onetrip"),
    ];
    for cell in safe_designs.concat() {
        assert_eq!(
            number(cell, "orders"),
            number(cell, "keys"),
            "safe designs: one order per key: {cell}"
        );
        assert_eq!(number(cell, "duplicates"), 0, "{cell}");
    }
    let naive_duplicates: u64 = cells(&report, "dup×4", "naive")
        .iter()
        .filter(|cell| number(cell, "concurrency") >= 4)
        .map(|cell| number(cell, "duplicates"))
        .sum();
    assert!(
        naive_duplicates > 0,
        "four copies at once race on the naive flow somewhere:\n{stdout}"
    );

    let _ = std::fs::remove_file(json_file);
    let _ = std::fs::remove_file(csv_file);
}

#[test]
fn pgbench_sends_each_flows_statements_and_the_safe_server_is_held_to_its_rate() {
    let json_file =
        std::env::temp_dir().join(format!("bench-pgbench-{}.json", uuid::Uuid::new_v4()));
    let (json, postgres) = (json_file.display().to_string(), postgres_url());
    let quick = "--quick --pgbench --storage postgres --concurrency 4 --requests 200";
    let mut args: Vec<&str> = quick.split(' ').collect();
    args.extend(["--postgres-url", &postgres, "--json", &json]);
    let stdout = bench(&args);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
    for flow in ["pgbench-naive", "pgbench-safe"] {
        let raw = cells(&report, "unique", flow);
        assert_eq!(raw.len(), 1, "one {flow} cell at 4 in flight:\n{stdout}");
        let raw = raw[0];
        assert_eq!(number(raw, "requests"), 200, "{raw}");
        assert_eq!(number(raw, "errors"), 0, "{raw}");
        assert_eq!(number(raw, "orders"), 200, "one order per script: {raw}");
        assert_eq!(number(raw, "duplicates"), 0, "{raw}");
        assert!(raw["requests_per_second"].as_f64().unwrap() > 0.0, "{raw}");
        assert!(raw["latency_ms"]["max"].as_f64().unwrap() > 0.0, "{raw}");
        assert!(
            raw["cpu_us_per_request"].as_f64().is_some(),
            "pgbench's own CPU time is read: {raw}"
        );
    }
    assert!(
        cells(&report, "dup×4", "pgbench").is_empty(),
        "pgbench's script sends unique keys only"
    );
    let goal = report["goals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|goal| goal["goal"].as_str().unwrap().contains("pgbench"))
        .expect("a goal against pgbench");
    assert_ne!(goal["status"], "not measured", "{goal}");
    assert!(
        goal["detail"].as_str().unwrap().starts_with("×4: "),
        "{goal}"
    );
    let _ = std::fs::remove_file(json_file);
}

#[test]
fn the_room_bench_times_ordinary_orders_on_every_server_while_another_lab_is_loaded() {
    lab_e2e::raise_open_files_limit();
    let json_file = std::env::temp_dir().join(format!("bench-room-{}.json", uuid::Uuid::new_v4()));
    let output = Command::new(env!("CARGO_BIN_EXE_idempotency-lab"))
        .args(["bench", "--room", "--storage", "sqlite", "--json"])
        .arg(&json_file)
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("| storage | server | p50 |"),
        "prints the table:\n{stdout}"
    );
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json_file);
    let servers: Vec<&str> = results
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["server"].as_str().unwrap())
        .collect();
    assert_eq!(servers, ["naive", "safe", "transactional"]);
    for row in results.as_array().unwrap() {
        assert_eq!(number(row, "tries"), 50, "{row}");
        assert!(row["latency_ms"]["p99"].as_f64().unwrap() > 0.0, "{row}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_is_measured_in_the_same_rounds_and_one_that_does_not_answer_counts_as_errors() {
    let lab_server =
        lab_e2e::spawn_server::<safe_server::SafeServer>(lab_e2e::Backend::Sqlite).await;
    // A port that was just free: nothing listens there.
    let nobody = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let json_file = std::env::temp_dir().join(format!("bench-peer-{}.json", uuid::Uuid::new_v4()));
    let args: Vec<String> = [
        "bench",
        "--quick",
        "--storage",
        "sqlite",
        "--peer",
        // The lab server serves from this test's process: its PID.
        &format!("lab-safe={}@{}", lab_server.orders_url, std::process::id()),
        "--peer",
        &format!("nobody=http://{nobody}/orders"),
        "--json",
    ]
    .into_iter()
    .map(str::to_owned)
    .chain([json_file.display().to_string()])
    .collect();
    let output = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_idempotency-lab"))
            .args(args)
            .output()
            .expect("the binary runs")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json_file);
    let all = report["results"].as_array().unwrap();
    assert_eq!(
        all.len(),
        2 * 2 * (8 + 2),
        "2 workloads × 2 levels × (8 targets + 2 peers)"
    );

    let peer_cells =
        |name: &str| -> Vec<&Value> { all.iter().filter(|cell| cell["target"] == name).collect() };
    for cell in peer_cells("lab-safe") {
        assert_eq!(cell["storage"], "peer", "{cell}");
        assert_eq!(
            number(cell, "errors"),
            0,
            "the lab server answered every request: {cell}"
        );
        assert_eq!(
            number(cell, "created_or_replayed") + number(cell, "conflicts"),
            number(cell, "requests"),
            "{cell}"
        );
        assert!(
            cell["orders"].is_null() && cell["duplicates"].is_null(),
            "a peer's orders are not claimed: {cell}"
        );
    }
    for cell in peer_cells("nobody") {
        assert_eq!(
            number(cell, "errors"),
            number(cell, "requests"),
            "a peer that does not answer fails every request: {cell}"
        );
        assert!(
            cell["cpu_us_per_request"].is_null(),
            "no PID, no CPU time: {cell}"
        );
    }
    // CPU time comes in 10 ms ticks: a quick cell may read 0, the run not.
    let cpu = |cells: Vec<&Value>| -> f64 {
        cells
            .iter()
            .map(|cell| {
                cell["cpu_us_per_request"]
                    .as_f64()
                    .unwrap_or_else(|| panic!("CPU per request for {cell}"))
            })
            .sum()
    };
    assert!(cpu(peer_cells("lab-safe")) > 0.0, "read from /proc/PID");
    let lab_cells = all
        .iter()
        .filter(|cell| cell["storage"] != "peer")
        .collect();
    assert!(
        cpu(lab_cells) > 0.0,
        "every lab row has its CPU per request"
    );
    assert_eq!(peer_cells("lab-safe").len(), 4);
    assert_eq!(peer_cells("nobody").len(), 4);
    assert!(
        stdout.contains("| peer | unique | 4 | lab-safe |"),
        "the peer has its rows in the table:\n{stdout}"
    );
    assert!(
        stdout.contains("each peer's req/s"),
        "the goals compare the peers with the safe server:\n{stdout}"
    );
}

#[test]
fn a_peer_that_is_not_name_equals_url_is_refused_before_anything_runs() {
    for peer in [
        "no-equals-sign",
        "safe=http://127.0.0.1:1/orders",
        "x=ftp://host/",
        "bad name=http://h/",
        "x=http://h/@4294967295",
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_idempotency-lab"))
            .args(["bench", "--quick", "--storage", "sqlite", "--peer", peer])
            .output()
            .expect("the binary runs");
        assert_eq!(output.status.code(), Some(2), "{peer} is refused");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("--peer"),
            "{peer}: says which option: {stderr}"
        );
    }
}

#[test]
fn a_small_classroom_goes_through_the_lesson_with_every_call_counted_and_every_order_right() {
    let json_file = std::env::temp_dir().join(format!("classroom-{}.json", uuid::Uuid::new_v4()));
    let postgres = postgres_url();
    let output = Command::new(env!("CARGO_BIN_EXE_idempotency-lab"))
        .args([
            "bench",
            "--classroom",
            "--learners",
            "4",
            "--storage",
            "postgres",
        ])
        .args(["--postgres-url", &postgres, "--json"])
        .arg(&json_file)
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("| step delivered by the stream |"),
        "{stdout}"
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
    // Per learner: 47 orders and reads in the eight runs, four calls after
    // each (two reads, the run saved, the progress), three reads at the end.
    assert_eq!(
        number(&report, "requests"),
        4 * (47 + 8 * 4 + 3),
        "{report}"
    );
    assert_eq!(number(&report, "failures"), 0, "{report}");
    assert_eq!(number(&report, "miscounted_learners"), 0, "{report}");
    assert!(number(&report, "steps_delivered") > 4 * 40, "{report}");
    for latencies in ["orders_ms", "reads_ms", "saves_ms", "step_delivery_ms"] {
        assert!(
            report[latencies]["p99"].as_f64().unwrap() > 0.0,
            "{latencies}: {report}"
        );
    }
}
