//! A pane's sequence diagram: the steps the server reports for each request,
//! one lane per request and one row per step, in the order the server took
//! them. It shows racing requests interleave ("A: no key, B: no key, A:
//! insert, B: insert") instead of saying that they do.

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;
use lab_wire::{BlockedOn, Gate, KeyFound, Step, StepKind};

use crate::key_label;
use crate::sorting::sort_by_number;

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
    /// Lays out `steps` (in any order) as lanes and rows, in `locale`'s words.
    pub fn of(steps: &[Step], locale: Locale) -> Self {
        let mut ordered: Vec<&Step> = steps.iter().collect();
        sort_by_number(&mut ordered, |step| step.seq as i64);
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
                            heading: td_string!(locale, pane.lane, number = lanes.len() + 1),
                            key: key_label(&step.key, locale),
                        });
                        lanes.len() - 1
                    }
                };
                Row {
                    lane,
                    after_ms: (step.at_us - start_us) as f64 / 1000.0,
                    text: describe(&step.kind, locale),
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
pub fn describe(kind: &StepKind, locale: Locale) -> String {
    match kind {
        StepKind::KeyLookedUp {
            found: KeyFound::Nothing,
        } => td_string!(locale, step.looked_up_nothing).into(),
        StepKind::KeyLookedUp {
            found: KeyFound::Answer,
        } => td_string!(locale, step.looked_up_answer).into(),
        StepKind::KeyLookedUp {
            found: KeyFound::InProgress,
        } => td_string!(locale, step.looked_up_in_progress).into(),
        StepKind::SlowPartStarted { ms } => td_string!(locale, step.slow_part, ms = ms),
        StepKind::TransactionBegun => td_string!(locale, step.transaction_begun).into(),
        StepKind::KeyClaimed => td_string!(locale, step.key_claimed).into(),
        StepKind::KeyConflict => td_string!(locale, step.key_conflict).into(),
        StepKind::ClaimTakenOver => td_string!(locale, step.claim_taken_over).into(),
        StepKind::OrderInserted => td_string!(locale, step.order_inserted).into(),
        StepKind::ClaimedAndOrdered => td_string!(locale, step.claimed_and_ordered).into(),
        StepKind::OrderRecovered => td_string!(locale, step.order_recovered).into(),
        StepKind::CardCharged { replayed: false } => td_string!(locale, step.card_charged).into(),
        StepKind::CardCharged { replayed: true } => td_string!(locale, step.charge_replayed).into(),
        StepKind::ChargeFailed => td_string!(locale, step.charge_failed).into(),
        StepKind::EmailSent => td_string!(locale, step.email_sent).into(),
        StepKind::EmailQueued => td_string!(locale, step.email_queued).into(),
        StepKind::FencedOut => td_string!(locale, step.fenced_out).into(),
        StepKind::ResponseSaved => td_string!(locale, step.response_saved).into(),
        StepKind::Committed => td_string!(locale, step.committed).into(),
        StepKind::RolledBack => td_string!(locale, step.rolled_back).into(),
        StepKind::KeyReleased => td_string!(locale, step.key_released).into(),
        StepKind::Crashed => td_string!(locale, step.crashed).into(),
        StepKind::Cancelled => td_string!(locale, step.cancelled).into(),
        StepKind::Answered {
            status,
            replayed: true,
        } => td_string!(locale, step.answered_replay, status = status),
        StepKind::Answered {
            status,
            replayed: false,
        } => td_string!(locale, step.answered, status = status),
        StepKind::ResponseDropped => td_string!(locale, step.response_dropped).into(),
        StepKind::AtGate { next } => {
            td_string!(locale, step.at_gate, next = gate_name(*next, locale))
        }
        StepKind::Blocked {
            on: BlockedOn::Database,
            by: Some(by),
        } => td_string!(locale, step.blocked_database, by = by),
        StepKind::Blocked {
            on: BlockedOn::Database,
            by: None,
        } => td_string!(locale, step.blocked_database_other).into(),
        StepKind::Blocked {
            on: BlockedOn::ServerLock,
            by: Some(by),
        } => td_string!(locale, step.blocked_lock, by = by),
        StepKind::Blocked {
            on: BlockedOn::ServerLock,
            by: None,
        } => td_string!(locale, step.blocked_lock_other).into(),
    }
}

/// What a scheduled request will do once released, in words.
pub fn gate_name(gate: Gate, locale: Locale) -> &'static str {
    match gate {
        Gate::TakeLock => td_string!(locale, gate.take_lock),
        Gate::LookUp => td_string!(locale, gate.look_up),
        Gate::Claim => td_string!(locale, gate.claim),
        Gate::TakeOver => td_string!(locale, gate.take_over),
        Gate::ClearExpired => td_string!(locale, gate.clear_expired),
        Gate::CheckClaim => td_string!(locale, gate.check_claim),
        Gate::InsertOrder => td_string!(locale, gate.insert_order),
        Gate::ClaimAndOrder => td_string!(locale, gate.claim_and_order),
        Gate::FindOrder => td_string!(locale, gate.find_order),
        Gate::SaveAnswer => td_string!(locale, gate.save_answer),
        Gate::SavePhase => td_string!(locale, gate.save_phase),
        Gate::QueueEmail => td_string!(locale, gate.queue_email),
        Gate::ReleaseClaim => td_string!(locale, gate.release_claim),
        Gate::Begin => td_string!(locale, gate.begin),
        Gate::Commit => td_string!(locale, gate.commit),
        Gate::RollBack => td_string!(locale, gate.roll_back),
        Gate::Charge => td_string!(locale, gate.charge),
        Gate::SendEmail => td_string!(locale, gate.send_email),
        Gate::Answer => td_string!(locale, gate.answer),
    }
}

pub(crate) fn tone(kind: &StepKind) -> &'static str {
    match kind {
        StepKind::KeyLookedUp {
            found: KeyFound::Nothing,
        } => "found-nothing",
        StepKind::KeyLookedUp { .. } => "found",
        StepKind::KeyClaimed | StepKind::ClaimTakenOver => "claimed",
        StepKind::KeyConflict => "conflict",
        StepKind::OrderInserted | StepKind::OrderRecovered | StepKind::ClaimedAndOrdered => "order",
        StepKind::CardCharged { replayed: false } | StepKind::EmailSent => "effect",
        StepKind::ChargeFailed | StepKind::FencedOut => "failure",
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
        let sequence = Sequence::of(&steps, Locale::en);

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

        let chinese = Sequence::of(&steps, Locale::zh_CN);
        assert_eq!(chinese.lanes[1].heading, "请求 2");
        assert_eq!(chinese.rows[0].text, "查询键：不存在");
        assert_eq!(chinese.rows[2].text, "插入了一笔订单");
    }

    #[test]
    fn answers_say_whether_they_were_replayed() {
        let replay = StepKind::Answered {
            status: 201,
            replayed: true,
        };
        assert_eq!(describe(&replay, Locale::en), "answered 201 (replay)");
        assert_eq!(describe(&replay, Locale::zh_CN), "返回 201（重放）");
        let conflict = StepKind::Answered {
            status: 409,
            replayed: false,
        };
        assert_eq!(describe(&conflict, Locale::en), "answered 409");
        assert_eq!(
            describe(&StepKind::KeyConflict, Locale::zh_CN),
            "插入键失败：违反 UNIQUE 约束"
        );
        assert_eq!(tone(&StepKind::KeyConflict), "conflict");
    }

    #[test]
    fn no_steps_draw_nothing() {
        assert!(Sequence::of(&[], Locale::en).is_empty());
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
