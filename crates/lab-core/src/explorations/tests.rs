//! The explorations' rules, without a server to explore: what is refused,
//! how an exploration that cannot reach its server ends, and how many are
//! kept. (`tests/tests/explorations.rs` runs real ones.)

use std::time::Duration;

use lab_wire::{ExplorationAsk, ExplorationState, LabId};

use super::*;

fn lab(number: usize) -> LabId {
    LabId::try_from(format!("lab-{number}").as_str()).unwrap()
}

const TWO: ExplorationAsk = ExplorationAsk {
    copies: 2,
    crash: false,
};

/// Explorations of `naive` on a server nobody listens at: each fails at
/// its first request.
fn unreachable() -> Explorations {
    let explorations = Explorations::default();
    // Port 9 (discard) on loopback: refused at once on these machines.
    explorations.serve_at("naive", "http://127.0.0.1:9/orders".to_owned());
    explorations
}

#[tokio::test]
async fn a_design_whose_address_is_unknown_cannot_be_explored() {
    let refused = Explorations::default()
        .start(&lab(1), "naive", TWO, &Room::default())
        .unwrap_err();
    assert!(
        matches!(refused, LabError::Schedule(ScheduleRefused::CannotExplore)),
        "{refused:?}"
    );
}

#[tokio::test]
async fn only_two_or_three_copies_are_explored() {
    let explorations = unreachable();
    for copies in [0, 1, 4, 255] {
        let ask = ExplorationAsk {
            copies,
            crash: false,
        };
        let refused = explorations.start(&lab(1), "naive", ask, &Room::default());
        assert!(
            matches!(refused, Err(LabError::InvalidRecord(_))),
            "{copies}: {refused:?}"
        );
    }
}

#[tokio::test]
async fn an_exploration_that_cannot_reach_its_server_fails_and_says_why() {
    let explorations = unreachable();
    let started = explorations
        .start(&lab(1), "naive", TWO, &Room::default())
        .unwrap();
    let ended = explorations
        .view(&lab(1), "naive", &started.id, LONGEST_WAIT)
        .await
        .unwrap();
    assert_eq!(ended.state, ExplorationState::Failed);
    assert!(
        ended.detail.as_deref().unwrap().contains("cannot reach"),
        "{:?}",
        ended.detail
    );
    // Read through another design's routes, it names nothing.
    let elsewhere = (explorations.view(&lab(1), "safe", &started.id, Duration::ZERO)).await;
    assert!(elsewhere.is_err());
}

#[tokio::test]
async fn the_server_keeps_at_most_its_share_of_ended_explorations_and_forgets_the_oldest() {
    let explorations = unreachable();
    let room = Room::default();
    let mut ids = Vec::new();
    for number in 0..=KEPT_IN_ALL {
        let started = explorations
            .start(&lab(number), "naive", TWO, &room)
            .unwrap();
        // Ended (failed) before the next starts: never two running at once.
        let ended = (explorations.view(&lab(number), "naive", &started.id, LONGEST_WAIT)).await;
        assert_eq!(ended.unwrap().state, ExplorationState::Failed);
        ids.push(started.id);
    }
    let first = (explorations.view(&lab(0), "naive", &ids[0], Duration::ZERO)).await;
    assert!(first.is_err(), "the oldest is forgotten");
    for (number, id) in ids.iter().enumerate().skip(1) {
        let kept = (explorations.view(&lab(number), "naive", id, Duration::ZERO)).await;
        assert!(kept.is_ok(), "exploration {number} is kept");
    }
    assert_eq!(explorations.lock().labs.len(), KEPT_IN_ALL);
}

#[tokio::test]
async fn stopping_names_one_exploration_and_stops_no_other() {
    let explorations = unreachable();
    let room = Room::default();
    let first = explorations.start(&lab(1), "naive", TWO, &room).unwrap();
    let _ = (explorations.view(&lab(1), "naive", &first.id, LONGEST_WAIT)).await;
    let second = explorations.start(&lab(1), "naive", TWO, &room).unwrap();
    // The lab's earlier exploration, and the right one through another
    // design's routes, name nothing to stop: the current one stays.
    for (design, id) in [("naive", &first.id), ("safe", &second.id)] {
        let refused = explorations.stop(&lab(1), design, id).unwrap_err();
        assert!(
            matches!(
                refused,
                LabError::Schedule(ScheduleRefused::ExplorationNotFound(_))
            ),
            "{design} {id}: {refused:?}"
        );
    }
    let kept = (explorations.view(&lab(1), "naive", &second.id, Duration::ZERO)).await;
    assert!(kept.is_ok());
    explorations.stop(&lab(1), "naive", &second.id).unwrap();
    let gone = (explorations.view(&lab(1), "naive", &second.id, Duration::ZERO)).await;
    assert!(gone.is_err(), "stopped and forgotten");
}
