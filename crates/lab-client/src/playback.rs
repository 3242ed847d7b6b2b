//! Replaying a finished run: what the page showed at a moment of it. Given a
//! time on the run's shared axis, which attempts had been sent and answered,
//! which orders the database held, and where "one event back / forward"
//! goes from there. The page's playback controls only move that time; every
//! answer comes from here, so it is tested without a browser.
//!
//! One axis for two clocks: the attempts are timed by the browser from the
//! moment the run started, the steps by the server from its first step.
//! The first step is the first request arriving, a fraction of a
//! millisecond after the browser sent it on a workshop's network, so the
//! two origins are taken to be the same moment rather than trusting two
//! machines' wall clocks to agree.

use lab_wire::{Order, Step, StepKind};

use crate::AttemptRecord;
use crate::sorting::sort_by_number;

/// The replay speeds offered, slowest first, each with its name: real
/// time is 1. (Named here, not written from the `f64`: see [`crate::Num`].)
pub const SPEEDS: [(f64, &str); 3] = [(0.25, "0.25×"), (0.5, "0.5×"), (1.0, "1×")];

/// The speed a replay starts at.
pub const DEFAULT_SPEED: f64 = 0.5;

/// A moment before anything happened: the axis's 0 is the first step, which
/// is shown at 0, so "nothing yet" sits just before it.
pub const BEFORE_START: f64 = -1.0;

/// The attempt as it stood at `ms`: `None` if it had not been sent yet;
/// still waiting, with no outcome, if its answer came later.
pub fn attempt_at(record: &AttemptRecord, ms: f64) -> Option<AttemptRecord> {
    if record.started_ms > ms {
        return None;
    }
    let mut seen = record.clone();
    if seen.ended_ms.is_some_and(|ended| ended > ms) {
        seen.ended_ms = None;
        seen.outcome = None;
    }
    Some(seen)
}

/// The orders the database held at `ms` after `origin_us`: every order
/// older than the run, and each of the run's orders from the moment the
/// server reported inserting it.
///
/// An order's `created_at` is stamped just before its `INSERT`, so each
/// order is matched with the first not-yet-matched insert step of its key
/// at or after that stamp (two copies of one key insert one order each,
/// in the same order as their stamps). An insert that was rolled back
/// left no order, so it is matched with none.
pub fn orders_at(orders: &[Order], steps: &[Step], origin_us: i64, ms: f64) -> Vec<Order> {
    let mut inserts: Vec<(&str, i64, bool)> = steps
        .iter()
        .filter(|step| {
            matches!(
                step.kind,
                StepKind::OrderInserted | StepKind::OrderRecovered | StepKind::ClaimedAndOrdered
            )
        })
        .map(|step| (step.key.as_str(), step.at_us, false))
        .collect();
    sort_by_number(&mut inserts, |(_, at_us, _)| *at_us);
    // Positions into `orders`, by stamp; the answer keeps the server's order.
    let mut by_stamp: Vec<usize> = (0..orders.len()).collect();
    sort_by_number(&mut by_stamp, |&index| orders[index].created_at.micros());
    let until_us = origin_us + (ms * 1000.0).round() as i64;
    let mut shown = vec![false; orders.len()];
    for index in by_stamp {
        let order = &orders[index];
        let stamped_us = order.created_at.micros();
        if stamped_us < origin_us {
            shown[index] = true;
            continue;
        }
        let insert = inserts.iter_mut().find(|(key, at_us, used)| {
            !*used && *key == order.idempotency_key && *at_us >= stamped_us
        });
        let visible_from_us = match insert {
            Some((_, at_us, used)) => {
                *used = true;
                *at_us
            }
            // No step for it (the stream fell behind): its own stamp.
            None => stamped_us,
        };
        shown[index] = visible_from_us <= until_us;
    }
    orders
        .iter()
        .zip(shown)
        .filter(|(_, shown)| *shown)
        .map(|(order, _)| order.clone())
        .collect()
}

/// The moment one event later than `ms`, or the last one.
pub fn next_moment(moments: &[f64], ms: f64) -> f64 {
    moments
        .iter()
        .copied()
        .find(|moment| *moment > ms)
        .or(moments.last().copied())
        .unwrap_or(BEFORE_START)
}

/// The moment one event earlier than `ms`; from the first one,
/// [`BEFORE_START`].
pub fn previous_moment(moments: &[f64], ms: f64) -> f64 {
    moments
        .iter()
        .copied()
        .rev()
        .find(|moment| *moment < ms)
        .unwrap_or(BEFORE_START)
}

#[cfg(test)]
mod tests;
