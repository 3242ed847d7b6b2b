//! The explorer runs every schedule of two copies of one order on a real
//! server and database: Naive leaves two orders in some of them (and the
//! shortest such schedule replays exactly), the designs that promise one
//! order keep it in all of them.

use explorer::{Plan, Target, run_schedule};
use lab_core::OrderServer;
use lab_e2e::{Backend, on_both_backends, spawn_server};
use lab_wire::{Gate, StepKind};
use locked_server::LockedServer;
use naive_server::NaiveServer;
use onetrip_server::OneTripServer;
use safe_server::SafeServer;

on_both_backends!(
    naive_leaves_two_orders_in_some_schedules_and_the_shortest_replays_exactly,
    safe_keeps_one_order_in_every_schedule,
    onetrip_keeps_one_order_in_every_schedule,
    locked_in_one_process_keeps_one_order_in_every_schedule,
);

async fn explore<S: OrderServer>(backend: Backend) -> (Target, explorer::Report) {
    let server = spawn_server::<S>(backend).await;
    let target = Target::new(server.orders_url.clone());
    let plan = Plan {
        design: S::NAME.to_owned(),
        copies: 2,
        max_schedules: 2_000,
    };
    let report = explorer::explore(&target, &plan)
        .await
        .expect("the exploration runs");
    println!("{backend:?}: {}", report.summary());
    (target, report)
}

/// The step kinds each request took, requests numbered in order of arrival
/// (the server's own numbers differ from run to run).
fn story(run: &explorer::ScheduleRun) -> Vec<(usize, StepKind)> {
    let mut requests: Vec<u64> = Vec::new();
    run.steps
        .iter()
        .map(|step| {
            if !requests.contains(&step.request) {
                requests.push(step.request);
            }
            let nth = requests.iter().position(|&r| r == step.request).unwrap() + 1;
            (nth, step.kind)
        })
        .collect()
}

async fn naive_leaves_two_orders_in_some_schedules_and_the_shortest_replays_exactly(
    backend: Backend,
) {
    let (target, report) = explore::<NaiveServer>(backend).await;
    let broken = report.broken().count();
    assert!(broken > 0, "{}", report.summary());
    assert!(
        broken < report.runs.len(),
        "running one copy first keeps one order"
    );
    // Every schedule is different, and each ran to its end.
    let mut schedules: Vec<&Vec<u8>> = report.runs.iter().map(|run| &run.schedule).collect();
    schedules.dedup();
    assert_eq!(schedules.len(), report.runs.len());
    assert!(report.runs.iter().all(|run| run.answers.len() == 2));

    let shortest = report.shortest_counterexample().unwrap();
    // Copy 2 looked the key up before copy 1 saved its answer.
    let moved = |copy: u8, gate: Gate| {
        let found = shortest
            .moves
            .iter()
            .position(|m| m.copy == copy && m.gate == gate);
        found.unwrap_or_else(|| panic!("copy {copy} ran {gate:?}: {shortest:?}"))
    };
    assert!(
        moved(2, Gate::LookUp) < moved(1, Gate::SaveAnswer),
        "{}",
        shortest.schedule_text()
    );
    let again = run_schedule(&target, 2, &shortest.schedule)
        .await
        .expect("the schedule replays");
    assert_eq!(again.schedule, shortest.schedule);
    assert_eq!(again.moves, shortest.moves);
    assert_eq!(story(&again), story(shortest));
    assert_eq!(again.orders.len(), shortest.orders.len());
    assert!(again.broke_the_promise());
}

async fn keeps_one_order<S: OrderServer>(backend: Backend) {
    let (_, report) = explore::<S>(backend).await;
    assert!(report.runs.len() > 1, "{}", report.summary());
    assert_eq!(report.broken().count(), 0, "{}", report.summary());
    assert!(
        report.runs.iter().all(|run| run.orders.len() == 1),
        "each schedule leaves the order: {}",
        report.summary()
    );
}

async fn safe_keeps_one_order_in_every_schedule(backend: Backend) {
    keeps_one_order::<SafeServer>(backend).await;
}

async fn onetrip_keeps_one_order_in_every_schedule(backend: Backend) {
    keeps_one_order::<OneTripServer>(backend).await;
}

async fn locked_in_one_process_keeps_one_order_in_every_schedule(backend: Backend) {
    keeps_one_order::<LockedServer>(backend).await;
}
