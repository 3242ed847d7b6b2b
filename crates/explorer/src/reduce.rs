//! Fewer schedules that show the same thing: a partial-order reduction.
//!
//! Two moves of different copies *commute* when running them in either
//! order leaves the database, the copies and their answers the same: a
//! copy's answer (it touches no table) and anything another copy does;
//! two look-ups of the key. Schedules that differ only by swapping
//! neighbouring moves that commute are *equivalent* (one Mazurkiewicz
//! trace): the same statements met the same rows, so they leave the same
//! orders and give the same answers. A reduced search runs one schedule
//! of each such set.
//!
//! It is Godefroid's sleep sets: after exploring move `a` at some point,
//! the other branches from that point put `a` to sleep, and it stays
//! asleep (not taken) until a move that does not commute with it runs, for
//! every schedule that would take it sooner is equivalent to one already
//! run. With one addition that keeps the search from running schedules
//! that end with nothing awake: a copy waiting at a gate whose move
//! commutes with everything (its answer) moves first, alone, as every
//! schedule is equivalent to one where it does.
//!
//! What commutes is read from the gate each copy waits at, nothing else:
//!
//! - the **answer** (a release, or a crash there: a dropped answer)
//!   touches no table;
//! - the **take-over** and the **clean-up of an expired key** change
//!   nothing while no claim's lock and no key's retention runs out, and
//!   none does in the seconds a schedule takes (the model assumes the
//!   same; its schedules agree with the servers');
//! - a **look-up** reads the key's row, so it commutes with another
//!   look-up;
//! - every other statement writes the key's rows or holds them, and a
//!   crash anywhere else may roll back what its copy holds: they commute
//!   with none of these. Two crashes never commute either (a schedule makes
//!   one).
//!
//! `tests/tests/model.rs` checks the claim on the real servers: over every
//! schedule it runs unreduced, equivalent schedules left the same orders
//! and verdicts, and the reduced search met every set once.

use lab_wire::Gate;

use crate::report::{Choice, Move};

/// What a move does to what other copies can see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Touch {
    /// Nothing another copy can see.
    Nothing,
    /// Reads the key's row.
    Reads,
    /// Writes or holds the key's rows (or crashes while it might).
    Writes,
}

impl Touch {
    /// What `choice` does, made at a copy waiting at `gate`.
    pub fn of(choice: Choice, gate: Gate) -> Self {
        match (choice, gate) {
            (_, Gate::Answer) => Self::Nothing,
            (Choice::Crash(_), _) => Self::Writes,
            (Choice::Release(_), Gate::TakeOver | Gate::ClearExpired) => Self::Nothing,
            (Choice::Release(_), Gate::LookUp | Gate::FindOrder) => Self::Reads,
            (Choice::Release(_), _) => Self::Writes,
        }
    }
}

/// A choice there was at some point of a schedule, and what it touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offered {
    /// The choice.
    pub choice: Choice,
    /// What it does.
    pub touch: Touch,
}

impl Offered {
    /// `choice` at a copy waiting at `gate`.
    pub fn new(choice: Choice, gate: Gate) -> Self {
        Self {
            choice,
            touch: Touch::of(choice, gate),
        }
    }

    /// Whether this and `other`, run in either order, leave the same.
    pub fn commutes_with(self, other: Offered) -> bool {
        let both_crash = matches!(
            (self.choice, other.choice),
            (Choice::Crash(_), Choice::Crash(_))
        );
        self.choice.copy() != other.choice.copy()
            && !both_crash
            && matches!(
                (self.touch, other.touch),
                (Touch::Nothing, _) | (_, Touch::Nothing) | (Touch::Reads, Touch::Reads)
            )
    }
}

/// What a reduced search does at one point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    /// The move this run makes.
    pub chosen: Choice,
    /// The branches other runs take from here: each move, with the moves
    /// asleep after it.
    pub branches: Vec<(Choice, Vec<Offered>)>,
    /// The moves asleep after `chosen`.
    pub asleep: Vec<Offered>,
}

/// Picks the move a reduced search makes at a point where `offered` are
/// the choices and `asleep` are asleep, and the branches the other
/// choices start; `None` when every choice is asleep (the schedule is
/// equivalent to one already run). `last` is the copy that moved last: it
/// goes on if it can, as in the unreduced search.
pub fn pick(offered: &[Offered], asleep: &[Offered], last: Option<u8>) -> Option<Pick> {
    // A sleeping choice whose copy has moved meanwhile is no longer the
    // same move: wake it (exploring more is always safe).
    let asleep: Vec<Offered> = asleep
        .iter()
        .copied()
        .filter(|sleeping| offered.contains(sleeping))
        .collect();
    let awake: Vec<Offered> = offered
        .iter()
        .copied()
        .filter(|choice| !asleep.iter().any(|s| s.choice == choice.choice))
        .collect();
    let crash_of = |copy: u8| offered.iter().find(|o| o.choice == Choice::Crash(copy));
    let quiet = awake.iter().copied().find(|one| {
        matches!(one.choice, Choice::Release(_))
            && one.touch == Touch::Nothing
            && crash_of(one.choice.copy()).is_none_or(|crash| crash.touch == Touch::Nothing)
    });
    let order: Vec<Offered> = match quiet {
        // Its answer commutes with everything: every schedule is
        // equivalent to one that answers it now, or drops its answer now.
        Some(quiet) => std::iter::once(quiet)
            .chain(
                awake
                    .iter()
                    .copied()
                    .filter(|one| one.choice == Choice::Crash(quiet.choice.copy())),
            )
            .collect(),
        None => {
            let go_on = last
                .map(Choice::Release)
                .and_then(|go_on| awake.iter().copied().find(|one| one.choice == go_on));
            let first = go_on.or_else(|| awake.first().copied())?;
            std::iter::once(first)
                .chain(awake.iter().copied().filter(|one| *one != first))
                .collect()
        }
    };
    let chosen = order[0];
    let branches = (1..order.len())
        .map(|i| {
            let sleeping = asleep
                .iter()
                .chain(&order[..i])
                .copied()
                .filter(|earlier| earlier.commutes_with(order[i]))
                .collect();
            (order[i].choice, sleeping)
        })
        .collect();
    let asleep = asleep
        .into_iter()
        .filter(|sleeping| sleeping.commutes_with(chosen))
        .collect();
    Some(Pick {
        chosen: chosen.choice,
        branches,
        asleep,
    })
}

/// One schedule of each set of equivalent ones: `moves` with every move
/// moved as early as the moves it does not commute with allow, the
/// lowest-written first (the lexicographic normal form). Two schedules are
/// equivalent when their forms are equal.
pub fn normal_form(moves: &[Move]) -> String {
    let offered: Vec<Offered> = moves
        .iter()
        .map(|one| Offered::new(one.choice, one.gate))
        .collect();
    let mut placed = vec![false; offered.len()];
    let mut form = Vec::with_capacity(offered.len());
    for _ in 0..offered.len() {
        let free = (0..offered.len()).filter(|&j| {
            !placed[j] && (0..j).all(|i| placed[i] || offered[i].commutes_with(offered[j]))
        });
        let next = free
            .min_by_key(|&j| offered[j].choice.to_string())
            .expect("a move with every earlier one it must follow placed");
        placed[next] = true;
        form.push(offered[next].choice.to_string());
    }
    form.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(choice: Choice, gate: Gate) -> Offered {
        Offered::new(choice, gate)
    }

    #[test]
    fn an_answer_commutes_with_every_other_copys_move_and_a_write_with_none() {
        let answer = at(Choice::Release(1), Gate::Answer);
        let claim = at(Choice::Release(2), Gate::Claim);
        let crash = at(Choice::Crash(2), Gate::InsertOrder);
        let look_up = at(Choice::Release(2), Gate::LookUp);
        assert!(answer.commutes_with(claim) && answer.commutes_with(crash));
        assert!(
            !answer.commutes_with(at(Choice::Crash(1), Gate::Answer)),
            "one copy"
        );
        assert!(look_up.commutes_with(at(Choice::Release(1), Gate::LookUp)));
        assert!(!look_up.commutes_with(at(Choice::Release(1), Gate::InsertOrder)));
        assert!(!claim.commutes_with(at(Choice::Release(1), Gate::Claim)));
        let dropped = at(Choice::Crash(1), Gate::Answer);
        assert!(!dropped.commutes_with(crash), "a schedule makes one crash");
    }

    #[test]
    fn a_copy_at_its_answer_moves_first_and_alone_when_nothing_else_could_follow() {
        let offered = [
            at(Choice::Release(1), Gate::InsertOrder),
            at(Choice::Release(2), Gate::Answer),
        ];
        let pick = pick(&offered, &[], Some(1)).unwrap();
        assert_eq!(pick.chosen, Choice::Release(2));
        assert!(pick.branches.is_empty());
    }

    #[test]
    fn a_branch_sleeps_on_the_moves_before_it_that_commute_and_wakes_when_one_does_not() {
        let one = at(Choice::Release(1), Gate::LookUp);
        let two = at(Choice::Release(2), Gate::LookUp);
        let pick_here = pick(&[one, two], &[], Some(1)).unwrap();
        assert_eq!(pick_here.chosen, Choice::Release(1));
        assert_eq!(pick_here.branches, vec![(Choice::Release(2), vec![one])]);
        // In that branch copy 1's look-up is asleep: with nothing else to
        // move, the branch ends (equivalent to `1 2`).
        assert_eq!(pick(&[one], &[one], Some(2)), None);
        // A write by copy 2 wakes it.
        let write = at(Choice::Release(2), Gate::InsertOrder);
        let after = pick(&[one, write], &[one], Some(2)).unwrap();
        assert_eq!(after.chosen, Choice::Release(2));
        assert!(after.asleep.is_empty());
    }

    #[test]
    fn equivalent_schedules_have_one_normal_form_and_others_differ() {
        let moves = |list: &[(u8, Gate)]| -> Vec<Move> {
            list.iter()
                .map(|&(copy, gate)| Move {
                    choice: Choice::Release(copy),
                    gate,
                })
                .collect()
        };
        let a = moves(&[(1, Gate::LookUp), (2, Gate::LookUp), (1, Gate::InsertOrder)]);
        let b = moves(&[(2, Gate::LookUp), (1, Gate::LookUp), (1, Gate::InsertOrder)]);
        let c = moves(&[(1, Gate::LookUp), (1, Gate::InsertOrder), (2, Gate::LookUp)]);
        assert_eq!(normal_form(&a), "1 2 1");
        assert_eq!(normal_form(&a), normal_form(&b));
        assert_ne!(normal_form(&a), normal_form(&c));
    }
}
