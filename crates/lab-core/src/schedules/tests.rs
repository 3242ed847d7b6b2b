//! The schedule's rules, without a server: who waits, who moves, what is refused.

use std::sync::Arc;
use std::time::Duration;

use lab_platform::gates::{run_scheduled, wait_at};
use lab_wire::{CopyState, Gate, LabId, Step, StepKind};
use tokio::sync::broadcast;

use super::*;
use crate::steps::{StepHub, Steps};

/// A crash handle nobody uses.
fn crash() -> futures::future::AbortHandle {
    futures::future::AbortHandle::new_pair().0
}

fn lab(name: &str) -> LabId {
    LabId::try_from(name).unwrap()
}

fn state_of(schedules: &Schedules, lab: &LabId, id: &str, copy: usize) -> CopyState {
    schedules.view(lab, id).unwrap().copies[copy - 1].state
}

/// A copy of one request of `lab` that reports its steps, and a listener
/// that hears them: how a test waits for a copy to reach its gate.
fn reporting_copy(hub: &StepHub, lab: &LabId) -> (Steps, broadcast::Receiver<Step>) {
    let listener = hub.subscribe(lab);
    (hub.start_request(lab, "k"), listener)
}

/// Waits for the next gate a copy reports.
async fn next_gate(listener: &mut broadcast::Receiver<Step>) -> Gate {
    let step = tokio::time::timeout(Duration::from_secs(10), listener.recv())
        .await
        .expect("a gate is reported")
        .expect("the hub is open");
    match step.kind {
        StepKind::AtGate { next } => next,
        other => panic!("not a gate: {other:?}"),
    }
}

// Paused time: the copy is shown not to move for half the idle limit
// without a release, with no wall-clock wait.
#[tokio::test(start_paused = true)]
async fn a_copy_waits_at_each_gate_until_it_is_released() {
    let schedules = Schedules::default();
    let lab = lab("gates");
    let hub = StepHub::new();
    let (steps, mut listener) = reporting_copy(&hub, &lab);
    let id = schedules.open(&lab).unwrap().id;
    let copy = Arc::new(schedules.join(&lab, &id, &steps, crash()).unwrap());
    let mut work = tokio::spawn(run_scheduled(copy, async {
        wait_at(Gate::LookUp).await;
        wait_at(Gate::InsertOrder).await;
    }));
    assert_eq!(next_gate(&mut listener).await, Gate::LookUp);
    let at_look_up = CopyState::AtGate { next: Gate::LookUp };
    assert_eq!(state_of(&schedules, &lab, &id, 1), at_look_up);
    let unreleased = tokio::time::timeout(IDLE_LIMIT / 2, &mut work).await;
    assert!(unreleased.is_err(), "it moved without a release");
    assert_eq!(
        state_of(&schedules, &lab, &id, 1),
        at_look_up,
        "still there"
    );

    schedules.release(&lab, &id, 1).unwrap();
    assert_eq!(next_gate(&mut listener).await, Gate::InsertOrder);
    let at_insert = CopyState::AtGate {
        next: Gate::InsertOrder,
    };
    assert_eq!(state_of(&schedules, &lab, &id, 1), at_insert);
    assert!(!work.is_finished());

    schedules.release(&lab, &id, 1).unwrap();
    work.await.unwrap();
    assert_eq!(state_of(&schedules, &lab, &id, 1), CopyState::Finished);
}

#[tokio::test]
async fn a_release_names_a_copy_that_waits_or_is_refused() {
    let schedules = Schedules::default();
    let lab = lab("refusals");
    let id = schedules.open(&lab).unwrap().id;
    let copy = schedules.join(&lab, &id, &Steps::off(), crash()).unwrap();
    let refused = |copy: u8| schedules.release(&lab, &id, copy).unwrap_err();
    assert!(matches!(
        refused(1),
        LabError::Schedule(ScheduleRefused::NotAtGate { copy: 1, .. })
    ));
    assert!(matches!(
        refused(2),
        LabError::Schedule(ScheduleRefused::NotAtGate { copy: 2, .. })
    ));
    assert!(matches!(
        refused(0),
        LabError::Schedule(ScheduleRefused::NotAtGate { copy: 0, .. })
    ));
    drop(copy);
    assert_eq!(state_of(&schedules, &lab, &id, 1), CopyState::Finished);
    assert!(refused(1).to_string().contains("finished"));
}

#[tokio::test]
async fn a_lab_holds_a_few_schedules_of_a_few_copies_and_sees_no_other_labs() {
    let schedules = Schedules::default();
    let (mine, theirs) = (lab("mine"), lab("theirs"));
    let ids: Vec<String> = (0..SCHEDULES_PER_LAB)
        .map(|_| schedules.open(&mine).unwrap().id)
        .collect();
    assert!(matches!(
        schedules.open(&mine),
        Err(LabError::Schedule(ScheduleRefused::TooMany(_)))
    ));
    schedules
        .open(&theirs)
        .expect("another lab has its own places");

    let copies: Vec<_> = (0..COPIES_PER_SCHEDULE)
        .map(|_| {
            schedules
                .join(&mine, &ids[0], &Steps::off(), crash())
                .unwrap()
        })
        .collect();
    assert!(matches!(
        schedules.join(&mine, &ids[0], &Steps::off(), crash()),
        Err(LabError::Schedule(ScheduleRefused::Full { .. }))
    ));
    assert_eq!(copies.len(), COPIES_PER_SCHEDULE);

    // Another lab can neither join, read, release nor close it.
    assert!(matches!(
        schedules.join(&theirs, &ids[0], &Steps::off(), crash()),
        Err(LabError::Schedule(ScheduleRefused::UnknownOnRequest(_)))
    ));
    for refused in [
        schedules.view(&theirs, &ids[0]).unwrap_err(),
        schedules.release(&theirs, &ids[0], 1).unwrap_err(),
        schedules.close(&theirs, &ids[0]).unwrap_err(),
    ] {
        assert!(matches!(
            refused,
            LabError::Schedule(ScheduleRefused::NotFound(_))
        ));
    }

    schedules.close(&mine, &ids[1]).unwrap();
    schedules
        .open(&mine)
        .expect("a closed schedule frees its place");
}

#[tokio::test]
async fn closing_a_schedule_lets_its_waiting_copies_run_on() {
    let schedules = Schedules::default();
    let lab = lab("closing");
    let id = schedules.open(&lab).unwrap().id;
    let hub = StepHub::new();
    let (steps, mut listener) = reporting_copy(&hub, &lab);
    let copy = Arc::new(schedules.join(&lab, &id, &steps, crash()).unwrap());
    let work = tokio::spawn(run_scheduled(copy, async {
        wait_at(Gate::Claim).await;
        wait_at(Gate::Commit).await;
    }));
    assert_eq!(next_gate(&mut listener).await, Gate::Claim);
    schedules.close(&lab, &id).unwrap();
    work.await.expect("both gates passed without a release");
}

#[tokio::test(start_paused = true)]
async fn a_schedule_left_untouched_past_its_idle_limit_is_closed_and_its_copies_run_on() {
    let schedules = Schedules::default();
    let lab = lab("idle");
    let id = schedules.open(&lab).unwrap().id;
    let hub = StepHub::new();
    let (steps, mut listener) = reporting_copy(&hub, &lab);
    let copy = Arc::new(schedules.join(&lab, &id, &steps, crash()).unwrap());
    let mut work = tokio::spawn(run_scheduled(copy, wait_at(Gate::LookUp)));
    assert_eq!(next_gate(&mut listener).await, Gate::LookUp);
    // Time is paused: each timeout below runs the clock on by its length.
    let waited = tokio::time::timeout(IDLE_LIMIT / 2, &mut work).await;
    assert!(waited.is_err(), "half the limit: it still waits");
    schedules.view(&lab, &id).unwrap();
    let waited = tokio::time::timeout(IDLE_LIMIT * 3 / 4, &mut work).await;
    assert!(waited.is_err(), "reading it counted as a touch");
    tokio::time::timeout(IDLE_LIMIT * 2, work)
        .await
        .expect("closed once idle past its limit")
        .unwrap();
    assert!(matches!(
        schedules.view(&lab, &id),
        Err(LabError::Schedule(ScheduleRefused::NotFound(_)))
    ));
}

#[tokio::test]
async fn a_gate_is_reported_on_the_step_stream_with_what_comes_next() {
    let hub = StepHub::new();
    let lab = lab("reported");
    let mut listener = hub.subscribe(&lab);
    let schedules = Schedules::default();
    let id = schedules.open(&lab).unwrap().id;
    let steps = hub.start_request(&lab, "k");
    let copy = Arc::new(schedules.join(&lab, &id, &steps, crash()).unwrap());
    assert_eq!(
        schedules.view(&lab, &id).unwrap().copies[0].request,
        steps.request()
    );
    let work = tokio::spawn(run_scheduled(copy, wait_at(Gate::SaveAnswer)));
    let step = listener.recv().await.unwrap();
    assert_eq!(
        step.kind,
        StepKind::AtGate {
            next: Gate::SaveAnswer
        }
    );
    assert_eq!(step.request, steps.request());
    schedules.release(&lab, &id, 1).unwrap();
    work.await.unwrap();
}
