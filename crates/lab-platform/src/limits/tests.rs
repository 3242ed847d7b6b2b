use std::time::Duration;

use super::*;

fn lab(name: &str) -> LabId {
    LabId::try_from(name).unwrap()
}

fn room(requests: u32, delay_secs: u32) -> Room {
    Room::new(RoomLimits {
        requests_per_lab: requests,
        delay_per_lab_secs: delay_secs,
        streams_per_lab: 2,
        streams_in_all: 3,
    })
}

#[test]
fn a_lab_past_its_requests_in_progress_is_refused_and_another_lab_is_not() {
    let room = room(2, 60);
    let first = room.admit(&lab("a"), Duration::ZERO).unwrap();
    let _second = room.admit(&lab("a"), Duration::ZERO).unwrap();
    assert_eq!(
        room.admit(&lab("a"), Duration::ZERO).unwrap_err(),
        LimitReached::Requests { limit: 2 }
    );
    assert!(room.admit(&lab("b"), Duration::ZERO).is_ok());
    drop(first);
    assert!(
        room.admit(&lab("a"), Duration::ZERO).is_ok(),
        "a finished request frees its place"
    );
}

#[test]
fn work_holding_many_requests_takes_that_many_places_and_gives_them_all_back() {
    let room = room(8, 60);
    let exploration = room.admit_many(&lab("a"), 6).unwrap();
    let _one = room.admit(&lab("a"), Duration::ZERO).unwrap();
    let _two = room.admit(&lab("a"), Duration::ZERO).unwrap();
    assert_eq!(
        room.admit(&lab("a"), Duration::ZERO).unwrap_err(),
        LimitReached::Requests { limit: 8 }
    );
    assert_eq!(
        room.admit_many(&lab("b"), 9).map(drop),
        Ok(()),
        "more than the share takes the whole share"
    );
    drop(exploration);
    assert!(room.admit_many(&lab("a"), 6).is_ok());
}

#[test]
fn the_delays_in_progress_of_one_lab_add_up_to_its_budget() {
    let room = room(100, 10);
    let held: Vec<_> = (0..3)
        .map(|_| room.admit(&lab("a"), Duration::from_secs(3)).unwrap())
        .collect();
    let refused = room
        .admit(&lab("a"), Duration::from_millis(1500))
        .unwrap_err();
    assert_eq!(
        refused,
        LimitReached::Delay {
            limit_secs: 10,
            asked_secs: 2
        }
    );
    assert_eq!(refused.retry_after_secs(), 2);
    assert!(
        room.admit(&lab("a"), Duration::from_secs(1)).is_ok(),
        "1 s still fits"
    );
    assert!(
        room.admit(&lab("a"), Duration::ZERO).is_ok(),
        "no delay costs none"
    );
    drop(held);
    assert!(room.admit(&lab("a"), Duration::from_secs(9)).is_ok());
}

#[test]
fn a_delay_longer_than_the_whole_budget_still_runs_alone() {
    let room = room(100, 1);
    let alone = room.admit(&lab("a"), Duration::from_secs(10)).unwrap();
    assert!(room.admit(&lab("a"), Duration::from_millis(1)).is_err());
    drop(alone);
}

#[test]
fn a_refused_request_holds_nothing_of_the_limits_it_passed() {
    let room = room(2, 1);
    let _held = room.admit(&lab("a"), Duration::from_secs(1)).unwrap();
    // Refused on its delay, after it took the lab's second request place...
    assert!(room.admit(&lab("a"), Duration::from_secs(1)).is_err());
    // ...which it gave back: a request without a delay still fits.
    assert!(room.admit(&lab("a"), Duration::ZERO).is_ok());
}

#[test]
fn streams_are_limited_per_lab_and_for_the_whole_server() {
    let room = room(10, 10);
    let a1 = room.open_stream(&lab("a")).unwrap();
    let _a2 = room.open_stream(&lab("a")).unwrap();
    let refused = room.open_stream(&lab("a")).unwrap_err();
    assert_eq!(refused, LimitReached::LabStreams { limit: 2 });
    assert!(!refused.is_server_wide());
    let _b1 = room.open_stream(&lab("b")).unwrap();
    let full = room.open_stream(&lab("c")).unwrap_err();
    assert_eq!(full, LimitReached::AllStreams { limit: 3 });
    assert!(full.is_server_wide());
    drop(a1);
    assert!(room.open_stream(&lab("c")).is_ok());
}

#[test]
fn labs_that_hold_nothing_leave_no_entry_behind() {
    let permits = PerLab::new(2);
    let held: Vec<_> = (0..50)
        .map(|n| permits.try_take(&lab(&format!("lab-{n}")), 1).unwrap())
        .collect();
    assert_eq!(permits.labs_holding(), 50);
    assert!(
        permits.try_take(&lab("full"), 3).is_some(),
        "cut to the share"
    );
    drop(held);
    assert_eq!(permits.labs_holding(), 0);
}

#[tokio::test]
async fn a_lab_waiting_for_a_permit_gets_the_next_one_freed() {
    let permits = PerLab::new(1);
    let first = permits.take(&lab("a")).await;
    let waiting = tokio::spawn({
        let permits = permits.clone();
        async move { permits.take(&lab("a")).await }
    });
    // Another lab is not held up by the one that waits.
    let other = permits.take(&lab("b")).await;
    tokio::task::yield_now().await;
    assert!(!waiting.is_finished());
    drop(first);
    let second = waiting.await.unwrap();
    assert_eq!(permits.labs_holding(), 2);
    drop(second);
    drop(other);
    assert_eq!(permits.labs_holding(), 0);
}
