//! Scheduled requests (`POST /schedules`, `Lab-Schedule`): each copy stops
//! at a gate before each statement and moves only when released, so the
//! order of the racing copies' statements is chosen, not timed. On both
//! databases. A released copy that cannot go on is reported blocked, from
//! the state of what it waits for: PostgreSQL's `pg_blocking_pids` for a
//! claim of a key another open transaction holds, the locked server's own
//! lock; it proceeds once the other lets go.

use lab_e2e::stepper::Stepper;
use lab_e2e::{Backend, new_key, on_both_backends, spawn_server};
use lab_wire::headers::{LAB_SCHEDULE, LAB_SECRET};
use lab_wire::{BlockedOn, CopyState, Gate, KeyFound, StepKind};
use locked_server::LockedServer;
use naive_server::NaiveServer;
use transactional_server::TransactionalServer;

on_both_backends!(
    naive_keeps_two_orders_when_both_copies_look_before_either_inserts,
    a_copy_moves_only_when_it_is_released,
    transactional_keeps_one_order_when_the_second_copy_claims_after_the_first_commits,
    a_request_naming_no_schedule_of_its_lab_is_refused_and_stores_nothing,
    the_locked_servers_second_copy_is_blocked_by_the_first_ones_lock_until_it_lets_go,
);

const NOTHING: StepKind = StepKind::KeyLookedUp {
    found: KeyFound::Nothing,
};

async fn naive_keeps_two_orders_when_both_copies_look_before_either_inserts(backend: Backend) {
    let server = spawn_server::<NaiveServer>(backend).await;
    let key = new_key();
    let mut stepper = Stepper::open(&server, &key).await;
    assert_eq!(stepper.add_copy().await, Gate::LookUp);
    assert_eq!(stepper.add_copy().await, Gate::LookUp);

    // The schedule `1 2`: both look the key up before either inserts.
    assert_eq!(stepper.step(1).await, Some(Gate::InsertOrder));
    assert_eq!(stepper.step(2).await, Some(Gate::InsertOrder));
    let copy_1 = stepper.run_to_end(1).await;
    let copy_2 = stepper.run_to_end(2).await;
    let rest = [Gate::InsertOrder, Gate::SaveAnswer, Gate::Answer];
    assert_eq!(copy_1, rest);
    assert_eq!(copy_2, rest);
    for copy in [1, 2] {
        let steps = stepper.steps_of(copy);
        assert_eq!(steps[1], NOTHING, "copy {copy}: {steps:?}");
        assert!(
            steps.contains(&StepKind::OrderInserted),
            "copy {copy}: {steps:?}"
        );
    }

    let answers = stepper.answers().await;
    assert!(
        answers.iter().all(|answer| answer.is_new_order()),
        "{answers:?}"
    );
    assert_ne!(answers[0].order().id, answers[1].order().id);
    let kept = server.orders().await;
    assert_eq!(
        kept.iter()
            .filter(|order| order.idempotency_key == key)
            .count(),
        2
    );
}

async fn a_copy_moves_only_when_it_is_released(backend: Backend) {
    let server = spawn_server::<NaiveServer>(backend).await;
    let key = new_key();
    let mut stepper = Stepper::open(&server, &key).await;
    stepper.add_copy().await;
    stepper.add_copy().await;
    stepper.step(1).await;
    // Copy 2 runs its look-up and stops again; copy 1 has not moved meanwhile.
    stepper.step(2).await;
    let view = stepper.view().await;
    let at_insert = CopyState::AtGate {
        next: Gate::InsertOrder,
    };
    assert_eq!(view.copies[0].state, at_insert, "{view:?}");
    assert_eq!(view.copies[1].state, at_insert, "{view:?}");
    assert!(
        !stepper
            .seen()
            .iter()
            .any(|step| step.kind == StepKind::OrderInserted),
        "no copy inserted before it was released: {:?}",
        stepper.seen()
    );
    assert!(server.orders().await.is_empty());

    // A copy that is not at a gate cannot be released.
    stepper.step(1).await;
    let response = reqwest::Client::new()
        .post(format!(
            "{}/schedules/{}/copies/3/release",
            server.orders_url.trim_end_matches("/orders"),
            stepper.id()
        ))
        .header(LAB_SECRET, &server.secret)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 409);
    let problem: serde_json::Value = response.json().await.unwrap();
    assert_eq!(problem["type"], "/problems/copy-not-at-gate");

    stepper.run_to_end(1).await;
    stepper.run_to_end(2).await;
    stepper.answers().await;
}

async fn transactional_keeps_one_order_when_the_second_copy_claims_after_the_first_commits(
    backend: Backend,
) {
    let server = spawn_server::<TransactionalServer>(backend).await;
    let key = new_key();
    let mut stepper = Stepper::open(&server, &key).await;
    stepper.add_copy().await;
    stepper.add_copy().await;
    // Both look first and find nothing, as in Naive's race.
    assert_eq!(stepper.step(1).await, Some(Gate::Begin));
    assert_eq!(stepper.step(2).await, Some(Gate::Begin));
    let first = stepper.run_to_end(1).await;
    let second = stepper.run_to_end(2).await;
    match backend {
        // Each statement of the transaction has its gate.
        Backend::Postgres => {
            let whole = [
                Gate::Begin,
                Gate::Claim,
                Gate::InsertOrder,
                Gate::SaveAnswer,
                Gate::Commit,
                Gate::Answer,
            ];
            assert_eq!(first, whole);
            assert_eq!(
                second,
                [
                    Gate::Begin,
                    Gate::Claim,
                    Gate::RollBack,
                    Gate::LookUp,
                    Gate::Answer
                ]
            );
        }
        // The one writer holds the whole transaction: one gate for all of it.
        Backend::Sqlite => {
            assert_eq!(first, [Gate::Begin, Gate::Answer]);
            assert_eq!(second, [Gate::Begin, Gate::LookUp, Gate::Answer]);
        }
    }
    assert!(stepper.steps_of(2).contains(&StepKind::KeyConflict));
    let answers = stepper.answers().await;
    assert!(answers[0].is_new_order(), "{answers:?}");
    assert!(answers[1].is_replay(), "{answers:?}");
    assert_eq!(answers[0].order().id, answers[1].order().id);
    assert_eq!(server.orders().await.len(), 1);
}

async fn a_request_naming_no_schedule_of_its_lab_is_refused_and_stores_nothing(backend: Backend) {
    let server = spawn_server::<NaiveServer>(backend).await;
    let key = new_key();
    let stepper = Stepper::open(&server, &key).await;
    let other_lab = server.in_new_lab();
    for (client, schedule) in [
        (&server, "sch_00000000000000000000000000000000"),
        (&server, "not even an id"),
        // Another lab's schedule is not this lab's to join.
        (&other_lab, stepper.id()),
    ] {
        let attempt = lab_e2e::client::send(
            client
                .order_request(Some(&key), lab_e2e::client::COFFEE)
                .header(LAB_SCHEDULE, schedule),
        )
        .await;
        let (status, problem) = attempt.problem();
        assert_eq!(status, 404, "{schedule}: {problem}");
        assert_eq!(problem["type"], "/problems/unknown-schedule");
        assert!(client.orders().await.is_empty());
    }
    assert!(stepper.view().await.copies.is_empty());
}

async fn the_locked_servers_second_copy_is_blocked_by_the_first_ones_lock_until_it_lets_go(
    backend: Backend,
) {
    let server = spawn_server::<LockedServer>(backend).await;
    let key = new_key();
    let mut stepper = Stepper::open(&server, &key).await;
    assert_eq!(stepper.add_copy().await, Gate::TakeLock);
    assert_eq!(stepper.add_copy().await, Gate::TakeLock);
    assert_eq!(stepper.step(1).await, Some(Gate::LookUp));
    // Copy 1 holds the key's lock in the server's memory: copy 2 waits for it.
    let view = stepper.release(2).await;
    let blocked = CopyState::Blocked {
        on: BlockedOn::ServerLock,
        by: Some(1),
    };
    assert_eq!(view.copies[1].state, blocked, "{view:?}");
    let holder = Some(stepper.request_of(1));
    let reported = stepper
        .wait_for_step(2, |kind| matches!(kind, StepKind::Blocked { .. }))
        .await;
    assert_eq!(
        reported,
        StepKind::Blocked {
            on: BlockedOn::ServerLock,
            by: holder
        }
    );
    let first = stepper.run_to_end(1).await;
    assert_eq!(
        first,
        [
            Gate::LookUp,
            Gate::InsertOrder,
            Gate::SaveAnswer,
            Gate::Answer
        ]
    );
    // Let go once copy 1's flow ended: copy 2 looks up, finds the answer.
    assert_eq!(stepper.wait_for(2).await, Some(Gate::LookUp));
    assert_eq!(stepper.run_to_end(2).await, [Gate::LookUp, Gate::Answer]);
    let answers = stepper.answers().await;
    assert!(
        answers[0].is_new_order() && answers[1].is_replay(),
        "{answers:?}"
    );
    assert_eq!(server.orders().await.len(), 1);
}

/// On PostgreSQL a second copy's claim of a key that an open transaction
/// has inserted waits in the database until that transaction ends: released,
/// it does not reach its next gate until copy 1 commits.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_postgres_a_released_claim_is_blocked_by_the_other_transaction_then_meets_the_constraint()
 {
    let server = spawn_server::<TransactionalServer>(Backend::Postgres).await;
    let key = new_key();
    let mut stepper = Stepper::open(&server, &key).await;
    stepper.add_copy().await;
    stepper.add_copy().await;
    for copy in [1, 2] {
        assert_eq!(stepper.step(copy).await, Some(Gate::Begin));
        assert_eq!(stepper.step(copy).await, Some(Gate::Claim));
    }
    assert_eq!(stepper.step(1).await, Some(Gate::InsertOrder));
    // Copy 2 inserts the same key while copy 1's transaction is open: the
    // release answers once PostgreSQL says the insert waits for copy 1.
    let view = stepper.release(2).await;
    let blocked = CopyState::Blocked {
        on: BlockedOn::Database,
        by: Some(1),
    };
    assert_eq!(view.copies[1].state, blocked, "{view:?}");
    let reported = stepper
        .wait_for_step(2, |kind| matches!(kind, StepKind::Blocked { .. }))
        .await;
    let holder = Some(stepper.request_of(1));
    assert_eq!(
        reported,
        StepKind::Blocked {
            on: BlockedOn::Database,
            by: holder
        }
    );
    assert_eq!(stepper.step(1).await, Some(Gate::SaveAnswer));
    assert_eq!(stepper.step(1).await, Some(Gate::Commit));
    assert_eq!(stepper.step(1).await, Some(Gate::Answer));
    assert_eq!(stepper.wait_for(2).await, Some(Gate::RollBack));

    let seq_of = |copy: u8, kind: StepKind| {
        let request = stepper.request_of(copy);
        stepper
            .seen()
            .iter()
            .find(|step| step.request == request && step.kind == kind)
            .map(|step| step.seq)
            .unwrap_or_else(|| panic!("copy {copy} took {kind:?}: {:?}", stepper.seen()))
    };
    // Copy 2's insert ended only once copy 1 was let through to its commit.
    // (Not after copy 1's `committed` step: PostgreSQL wakes copy 2 as it
    // commits, and copy 2 may report first.)
    let commit_gate = StepKind::AtGate { next: Gate::Commit };
    assert!(
        seq_of(1, commit_gate) < seq_of(2, StepKind::KeyConflict),
        "the conflict came only once copy 1 went on to commit: {:?}",
        stepper.seen()
    );
    stepper.run_to_end(1).await;
    stepper.run_to_end(2).await;
    let answers = stepper.answers().await;
    assert!(
        answers[0].is_new_order() && answers[1].is_replay(),
        "{answers:?}"
    );
    assert_eq!(server.orders().await.len(), 1);
}

/// A crash at a gate inside a transaction drops it: PostgreSQL rolls the
/// claim back, and the client's retry claims the key and orders once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_postgres_a_crash_inside_the_transaction_rolls_the_claim_back_for_the_retry() {
    let server = spawn_server::<TransactionalServer>(Backend::Postgres).await;
    let key = new_key();
    let mut stepper = Stepper::open(&server, &key).await;
    stepper.add_copy().await;
    assert_eq!(stepper.step(1).await, Some(Gate::Begin));
    assert_eq!(stepper.step(1).await, Some(Gate::Claim));
    assert_eq!(stepper.step(1).await, Some(Gate::InsertOrder));
    let view = stepper.crash(1).await;
    assert_eq!(view.copies[0].state, CopyState::Finished, "{view:?}");
    assert_eq!(stepper.wait_for(1).await, None, "its story ends");
    assert_eq!(stepper.steps_of(1).last(), Some(&StepKind::Crashed));

    // The retry finds no claim: the crashed transaction was rolled back.
    assert_eq!(stepper.add_copy().await, Gate::LookUp);
    let retry = stepper.run_to_end(2).await;
    assert_eq!(
        retry,
        [
            Gate::LookUp,
            Gate::Begin,
            Gate::Claim,
            Gate::InsertOrder,
            Gate::SaveAnswer,
            Gate::Commit,
            Gate::Answer
        ]
    );
    assert!(stepper.steps_of(2).contains(&StepKind::KeyClaimed));
    let answers = stepper.answers().await;
    assert!(answers[0].is_unanswered(), "{answers:?}");
    assert!(answers[1].is_new_order(), "{answers:?}");
    assert_eq!(server.orders().await.len(), 1);
}

/// Copy 2's claim waits for copy 1's transaction; copy 1 crashes there.
/// The crash answers once copy 2 has moved on to its next gate: the
/// dropped transaction's rollback is on its way, so copy 2 is not
/// blocked, however long PostgreSQL takes to let go. (On an idle machine
/// the rollback is done before anyone looks; the race it guards against
/// shows under load, which `explore.rs` makes.)
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_postgres_a_copy_blocked_by_a_transaction_that_crashes_is_at_its_next_gate_when_the_crash_answers()
 {
    let server = spawn_server::<TransactionalServer>(Backend::Postgres).await;
    let key = new_key();
    let mut stepper = Stepper::open(&server, &key).await;
    stepper.add_copy().await;
    stepper.add_copy().await;
    for _ in 0..3 {
        stepper.step(1).await;
    }
    for _ in 0..2 {
        stepper.step(2).await;
    }
    let view = stepper.release(2).await;
    assert!(
        matches!(view.copies[1].state, CopyState::Blocked { by: Some(1), .. }),
        "copy 2's claim waits for copy 1's transaction: {view:?}"
    );
    let view = stepper.crash(1).await;
    assert_eq!(view.copies[0].state, CopyState::Finished, "{view:?}");
    assert_eq!(
        view.copies[1].state,
        CopyState::AtGate {
            next: Gate::InsertOrder
        },
        "copy 2 claimed the key once copy 1's transaction was rolled back: {view:?}"
    );
}
