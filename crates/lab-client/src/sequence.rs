//! A pane's sequence diagram: the steps the server reports for each request,
//! one lane per request and one row per step, in the order the server took
//! them. It shows racing requests interleave ("A: no key, B: no key, A:
//! insert, B: insert") instead of saying that they do.

use lab_wire::{KeyFound, Step, StepKind};

use crate::short_key;

/// One lane: a request as the server numbered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lane {
    /// The server's number for the request (in order of arrival).
    pub request: u64,
    /// The lane's heading, e.g. `Request 2`: numbered from 1 in each diagram.
    pub heading: String,
    /// The start of the request's key, e.g. `3f2a9c1e`.
    pub key: String,
}

/// One row: one step of one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Which lane (index into [`Sequence::lanes`]) took the step.
    pub lane: usize,
    /// Milliseconds since the first step shown, by the server's clock.
    pub after_ms: f64,
    /// The step in plain words.
    pub text: String,
    /// A CSS-friendly name for the kind of step, for its colour and icon.
    pub tone: &'static str,
}

/// The whole diagram.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sequence {
    /// The requests, in order of their first step.
    pub lanes: Vec<Lane>,
    /// The steps, in the order the server took them.
    pub rows: Vec<Row>,
}

impl Sequence {
    /// Lays out `steps` (in any order) as lanes and rows.
    pub fn of(steps: &[Step]) -> Self {
        let mut ordered: Vec<&Step> = steps.iter().collect();
        ordered.sort_by_key(|step| step.seq);
        let start_us = ordered.first().map_or(0, |step| step.at_us);
        let mut lanes: Vec<Lane> = Vec::new();
        let rows = ordered
            .into_iter()
            .map(|step| {
                let lane = match lanes.iter().position(|lane| lane.request == step.request) {
                    Some(lane) => lane,
                    None => {
                        lanes.push(Lane {
                            request: step.request,
                            heading: format!("Request {}", lanes.len() + 1),
                            key: short_key(&step.key).to_owned(),
                        });
                        lanes.len() - 1
                    }
                };
                Row {
                    lane,
                    after_ms: (step.at_us - start_us) as f64 / 1000.0,
                    text: describe(&step.kind),
                    tone: tone(&step.kind),
                }
            })
            .collect();
        Self { lanes, rows }
    }

    /// Whether there is nothing to draw.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// A step in plain words, short enough for a narrow lane.
pub fn describe(kind: &StepKind) -> String {
    match kind {
        StepKind::KeyLookedUp {
            found: KeyFound::Nothing,
        } => "looked for the key: none".to_owned(),
        StepKind::KeyLookedUp {
            found: KeyFound::Answer,
        } => "looked for the key: answer saved".to_owned(),
        StepKind::KeyLookedUp {
            found: KeyFound::InProgress,
        } => "looked for the key: still in progress".to_owned(),
        StepKind::SlowPartStarted { ms } => format!("slow payment: {ms} ms"),
        StepKind::TransactionBegun => "began a transaction".to_owned(),
        StepKind::KeyClaimed => "inserted the key: claimed".to_owned(),
        StepKind::KeyConflict => "inserting the key failed: UNIQUE".to_owned(),
        StepKind::ClaimTakenOver => "took over a stale claim".to_owned(),
        StepKind::OrderInserted => "inserted an order".to_owned(),
        StepKind::OrderRecovered => "found the crashed request's order".to_owned(),
        StepKind::ResponseSaved => "saved the answer".to_owned(),
        StepKind::Committed => "committed".to_owned(),
        StepKind::RolledBack => "rolled back".to_owned(),
        StepKind::KeyReleased => "deleted its claim".to_owned(),
        StepKind::Crashed => "crashed".to_owned(),
        StepKind::Cancelled => "stopped: client hung up".to_owned(),
        StepKind::Answered {
            status,
            replayed: true,
        } => format!("answered {status} (replay)"),
        StepKind::Answered {
            status,
            replayed: false,
        } => format!("answered {status}"),
        StepKind::ResponseDropped => "hung up, no answer".to_owned(),
    }
}

fn tone(kind: &StepKind) -> &'static str {
    match kind {
        StepKind::KeyLookedUp {
            found: KeyFound::Nothing,
        } => "found-nothing",
        StepKind::KeyLookedUp { .. } => "found",
        StepKind::KeyClaimed | StepKind::ClaimTakenOver => "claimed",
        StepKind::KeyConflict => "conflict",
        StepKind::OrderInserted | StepKind::OrderRecovered => "order",
        StepKind::Crashed | StepKind::Cancelled | StepKind::ResponseDropped => "failure",
        StepKind::RolledBack | StepKind::KeyReleased => "undone",
        StepKind::Answered { .. } => "answer",
        _ => "plain",
    }
}

/// Whether the server has reported at least `sent` requests and the last
/// step (answered, crashed, cancelled, dropped) of each: after that,
/// nothing it still does can change the run's orders. A client that timed
/// out has hung up, but its request may still be at work on the server.
pub fn every_request_ended(steps: &[Step], sent: usize) -> bool {
    let mut requests: Vec<(u64, bool)> = Vec::new();
    for step in steps {
        match requests
            .iter_mut()
            .find(|(request, _)| *request == step.request)
        {
            Some((_, ended)) => *ended |= step.kind.is_last(),
            None => requests.push((step.request, step.kind.is_last())),
        }
    }
    requests.len() >= sent && requests.iter().all(|(_, ended)| *ended)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(seq: u64, request: u64, at_us: i64, kind: StepKind) -> Step {
        Step {
            seq,
            request,
            key: "3f2a9c1e-0000".to_owned(),
            at_us,
            kind,
        }
    }

    const NOTHING: StepKind = StepKind::KeyLookedUp {
        found: KeyFound::Nothing,
    };

    #[test]
    fn racing_requests_get_a_lane_each_and_rows_in_the_servers_order() {
        // Arrived out of order, as events from two requests may.
        let steps = [
            step(12, 8, 1_302_000, StepKind::OrderInserted),
            step(10, 7, 1_000_000, NOTHING),
            step(13, 7, 1_303_500, StepKind::OrderInserted),
            step(11, 8, 1_001_000, NOTHING),
        ];
        let sequence = Sequence::of(&steps);

        let lanes: Vec<_> = sequence
            .lanes
            .iter()
            .map(|l| (l.request, l.heading.as_str(), l.key.as_str()))
            .collect();
        assert_eq!(
            lanes,
            [(7, "Request 1", "3f2a9c1e"), (8, "Request 2", "3f2a9c1e")]
        );
        let rows: Vec<_> = sequence
            .rows
            .iter()
            .map(|r| (r.lane, r.text.as_str()))
            .collect();
        assert_eq!(
            rows,
            [
                (0, "looked for the key: none"),
                (1, "looked for the key: none"),
                (1, "inserted an order"),
                (0, "inserted an order"),
            ]
        );
        assert_eq!(sequence.rows[0].after_ms, 0.0);
        assert_eq!(sequence.rows[3].after_ms, 303.5);
    }

    #[test]
    fn answers_say_whether_they_were_replayed() {
        let replay = StepKind::Answered {
            status: 201,
            replayed: true,
        };
        assert_eq!(describe(&replay), "answered 201 (replay)");
        let conflict = StepKind::Answered {
            status: 409,
            replayed: false,
        };
        assert_eq!(describe(&conflict), "answered 409");
        assert_eq!(tone(&StepKind::KeyConflict), "conflict");
    }

    #[test]
    fn no_steps_draw_nothing() {
        assert!(Sequence::of(&[]).is_empty());
    }

    #[test]
    fn a_run_is_over_only_when_every_request_sent_has_reported_its_end() {
        let step = |request: u64, kind: StepKind| Step {
            seq: 0,
            request,
            key: "k".into(),
            at_us: 0,
            kind,
        };
        let answered = StepKind::Answered {
            status: 201,
            replayed: false,
        };
        let first_done = [
            step(1, StepKind::KeyClaimed),
            step(2, StepKind::KeyConflict),
            step(1, answered),
        ];
        assert!(
            !every_request_ended(&first_done, 2),
            "request 2 is still at work"
        );
        let both_done = [first_done.to_vec(), vec![step(2, StepKind::Cancelled)]].concat();
        assert!(every_request_ended(&both_done, 2));
        assert!(
            !every_request_ended(&both_done, 3),
            "a third request the server has not reported yet"
        );
        assert!(!every_request_ended(&[], 1));
    }
}
