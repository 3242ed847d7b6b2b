//! The goals checked against made-up cells: met, missed, not measured.

use super::*;
use crate::report::tests::cell;
use crate::report::{to_csv, to_table};

#[test]
fn goals_are_met_or_missed_from_the_numbers() {
    let results = vec![
        cell("naive", "unique", 16, 1000.0, 100),
        cell("safe", "unique", 16, 950.0, 100),
        cell("naive-sql", "unique", 16, 1500.0, 100),
        cell("safe-sql", "unique", 16, 2000.0, 100),
        cell("naive", "dup×4", 16, 1000.0, 40),
        cell("safe", "dup×4", 16, 1000.0, 25),
    ];
    let goals = evaluate_goals(&results);
    assert_eq!(goals[0].status, "met", "{:?}", goals[0]);
    assert_eq!(
        goals[2].status, "missed",
        "safe is at 47.5% of its SQL: {:?}",
        goals[2]
    );
    assert!(goals[2].detail.contains("safe: 48%"), "{:?}", goals[2]);
    assert_eq!(goals[4].status, "met");
    assert_eq!(
        goals[5].status, "met",
        "naive duplicates are reported, not a miss: {:?}",
        goals[5]
    );
    assert!(
        goals[5]
            .detail
            .contains("one order per key in all 1 safe cells"),
        "{:?}",
        goals[5]
    );
    assert!(
        goals[5]
            .detail
            .contains("naive postgres ×16: 15 for 25 keys"),
        "{:?}",
        goals[5]
    );
}

#[test]
fn a_peer_is_compared_with_the_safe_server_and_its_orders_are_not_claimed() {
    let mut peer = cell("express-safe", "unique", 16, 400.0, 0);
    peer.storage = PEER_STORAGE;
    (peer.orders, peer.duplicates) = (None, None);
    peer.cpu_us_per_request = Some(600.0);
    let results = vec![cell("safe", "unique", 16, 1000.0, 100), peer];
    let goals = evaluate_goals(&results);
    let cpu = goals.last().unwrap();
    assert_eq!(cpu.status, "missed", "4× is short of 5×: {cpu:?}");
    assert!(
        cpu.detail
            .contains("express-safe unique: 600 µs ÷ 150 µs = 4.0×"),
        "{cpu:?}"
    );
    let versus = &goals[goals.len() - 2];
    assert_eq!(versus.status, "missed", "2.5× is short of 3×: {versus:?}");
    assert!(
        versus.detail.contains("express-safe unique: 2.50×"),
        "{versus:?}"
    );
    let table = to_table(&results);
    assert!(
        table.contains("| peer | unique | 16 | express-safe | 400 | 600 | — | — |"),
        "{table}"
    );
    assert!(table.trim_end().ends_with("| 25 | — | — |"), "{table}");
    assert!(to_csv(&results).trim_end().ends_with(",25,,"));
}

#[test]
fn a_peer_without_its_pid_is_not_measured_by_cpu() {
    let mut peer = cell("express-safe", "unique", 16, 400.0, 0);
    (peer.storage, peer.cpu_us_per_request) = (PEER_STORAGE, None);
    let goals = evaluate_goals(&[cell("safe", "unique", 16, 1000.0, 100), peer]);
    assert_eq!(goals.last().unwrap().status, "not measured");
}

#[test]
fn the_one_trip_server_is_held_to_the_naive_servers_throughput() {
    let results = vec![
        cell("naive", "unique", 16, 1000.0, 100),
        cell("onetrip", "unique", 16, 990.0, 100),
        cell("naive", "unique", 1, 100.0, 100),
        cell("onetrip", "unique", 1, 120.0, 100),
    ];
    let goal = &evaluate_goals(&results)[1];
    assert_eq!(goal.status, "missed", "0.99 is short of 1.0: {goal:?}");
    assert!(goal.detail.contains("postgres ×16: 0.99"), "{goal:?}");
    assert!(goal.detail.contains("postgres ×1: 1.20"), "{goal:?}");
}

#[test]
fn the_safe_server_is_held_to_the_rate_pgbench_gets_from_its_statements() {
    let results = vec![
        cell("safe", "unique", 16, 1800.0, 100),
        cell(crate::pgbench::SAFE_TARGET, "unique", 16, 2500.0, 100),
        cell("safe", "unique", 1, 950.0, 100),
        cell(crate::pgbench::SAFE_TARGET, "unique", 1, 1000.0, 100),
    ];
    let goal = &evaluate_goals(&results)[3];
    assert!(goal.goal.contains("pgbench"), "{goal:?}");
    assert_eq!(goal.status, "missed", "0.72 is short of 0.9: {goal:?}");
    assert_eq!(goal.detail, "×16: 0.72; ×1: 0.95");
    let without = evaluate_goals(&[cell("safe", "unique", 16, 1800.0, 100)]);
    assert_eq!(without[3].status, "not measured");
}

#[test]
fn a_run_without_postgres_cells_does_not_claim_the_postgres_goal() {
    let goals = evaluate_goals(&[cell("naive", "unique", 1, 10.0, 1)]);
    assert_eq!(goals[2].status, "not measured");
}

#[test]
fn a_transactional_duplicate_is_a_miss_and_its_http_cost_is_checked() {
    let results = vec![
        cell("transactional", "unique", 16, 790.0, 100),
        cell("transactional-sql", "unique", 16, 1000.0, 100),
        cell("transactional", "dup×4", 16, 1000.0, 26),
    ];
    let goals = evaluate_goals(&results);
    assert_eq!(
        goals[2].status, "missed",
        "79% is short of 80%: {:?}",
        goals[2]
    );
    assert!(
        goals[2].detail.contains("transactional: 79%"),
        "{:?}",
        goals[2]
    );
    assert_eq!(goals[5].status, "missed", "{:?}", goals[5]);
    assert!(
        goals[5]
            .detail
            .contains("transactional postgres ×16: 26 orders for 25 keys"),
        "{:?}",
        goals[5]
    );
}
