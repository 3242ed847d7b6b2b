//! The model's reduced listing: one schedule of each set of equivalent
//! ones, picked as the explorer's reduced search picks them (sleep sets,
//! an answer first and alone; `explorer::reduce`), so that the two lists
//! can be compared schedule by schedule. Which moves commute is written
//! here from the model's own statements, not taken from the explorer:
//! an answer touches no table, the take-over and the clean-up change
//! nothing while no lock or retention runs out (the model never lets one),
//! look-ups only read, and everything else writes.
//!
//! [`DesignModel::commuting_moves_commute`] checks that claim over every
//! state the model reaches: two moves said to commute lead to the same
//! world in either order.

use std::collections::BTreeSet;

use super::{At, DesignModel, Move, PhasedAt, World};

/// What a move does to what other copies can see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Touch {
    Nothing,
    Reads,
    Writes,
}

/// A move, and what it touches where it is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Made {
    one: Move,
    touch: Touch,
}

impl Made {
    fn at(world: &World, one: Move) -> Self {
        let at = world.copies[usize::from(one.copy()) - 1].at;
        let touch = match (one, at) {
            (_, At::Answer) => Touch::Nothing,
            (Move::Crash(_), _) => Touch::Writes,
            (
                Move::Release(_),
                At::TakeOver
                | At::ClearExpired
                | At::Phased(PhasedAt::TakeOver | PhasedAt::ClearExpired),
            ) => Touch::Nothing,
            (
                Move::Release(_),
                At::LookUp
                | At::LookUpAnswer
                | At::LookUpKey
                | At::CheckKey
                | At::Phased(PhasedAt::FindKey),
            ) => Touch::Reads,
            (Move::Release(_), _) => Touch::Writes,
        };
        Self { one, touch }
    }

    fn commutes_with(self, other: Made) -> bool {
        let both_crash = matches!((self.one, other.one), (Move::Crash(_), Move::Crash(_)));
        self.one.copy() != other.one.copy()
            && !both_crash
            && matches!(
                (self.touch, other.touch),
                (Touch::Nothing, _) | (_, Touch::Nothing) | (Touch::Reads, Touch::Reads)
            )
    }
}

impl DesignModel {
    /// One complete schedule of each set of equivalent ones, in the
    /// explorer's notation, and whether it kept the promise. Not with a
    /// bound on preemptions (the explorer refuses both at once).
    pub fn reduced_schedules(&self) -> Vec<(String, bool)> {
        assert!(self.preemptions.is_none(), "a reduced listing has no bound");
        let mut done = Vec::new();
        let mut stack = vec![(self.initial(), Vec::<Move>::new(), Vec::<Made>::new())];
        while let Some((world, path, asleep)) = stack.pop() {
            let moves = self.moves(&world);
            if moves.is_empty() {
                let text: Vec<String> = path.iter().map(|one| one.text()).collect();
                done.push((text.join(" "), world.kept_the_promise()));
                continue;
            }
            let made: Vec<Made> = moves.iter().map(|&one| Made::at(&world, one)).collect();
            let awake: Vec<Made> = made
                .iter()
                .copied()
                .filter(|one| !asleep.iter().any(|sleeping| sleeping.one == one.one))
                .collect();
            let crash_commutes = |copy: u8| {
                made.iter()
                    .filter(|one| one.one == Move::Crash(copy))
                    .all(|crash| crash.touch == Touch::Nothing)
            };
            let quiet = awake.iter().copied().find(|one| {
                matches!(one.one, Move::Release(_))
                    && one.touch == Touch::Nothing
                    && crash_commutes(one.one.copy())
            });
            let order: Vec<Made> = match quiet {
                Some(quiet) => std::iter::once(quiet)
                    .chain(
                        awake
                            .iter()
                            .copied()
                            .filter(|one| one.one == Move::Crash(quiet.one.copy())),
                    )
                    .collect(),
                None => {
                    let go_on = path.last().map(|last| Move::Release(last.copy()));
                    let Some(first) = awake
                        .iter()
                        .copied()
                        .find(|one| Some(one.one) == go_on)
                        .or_else(|| awake.first().copied())
                    else {
                        // Every move asleep: equivalent to a schedule listed.
                        continue;
                    };
                    std::iter::once(first)
                        .chain(awake.iter().copied().filter(|one| *one != first))
                        .collect()
                }
            };
            for (i, &one) in order.iter().enumerate() {
                let sleeping: Vec<Made> = asleep
                    .iter()
                    .chain(&order[..i])
                    .copied()
                    .filter(|earlier| earlier.commutes_with(one))
                    .collect();
                let mut next = world.clone();
                self.make(&mut next, one.one);
                let mut longer = path.clone();
                longer.push(one.one);
                stack.push((next, longer, sleeping));
            }
        }
        done.sort();
        done
    }

    /// The reduced listing's schedules that broke the promise.
    pub fn reduced_broken(&self) -> BTreeSet<String> {
        self.reduced_schedules()
            .into_iter()
            .filter(|(_, kept)| !kept)
            .map(|(schedule, _)| schedule)
            .collect()
    }

    /// Checks that in every state the model reaches, any two moves said
    /// to commute lead to the same world in either order, and neither takes
    /// the other away; returns how many states it checked, or the first
    /// state and moves where they do not.
    pub fn commuting_moves_commute(&self) -> Result<usize, String> {
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![self.initial()];
        while let Some(world) = stack.pop() {
            if !seen.insert(world.clone()) {
                continue;
            }
            let moves = self.moves(&world);
            for (i, &a) in moves.iter().enumerate() {
                for &b in &moves[i + 1..] {
                    let (made_a, made_b) = (Made::at(&world, a), Made::at(&world, b));
                    if !made_a.commutes_with(made_b) {
                        continue;
                    }
                    let [mut ab, mut ba] = [world.clone(), world.clone()];
                    self.make(&mut ab, a);
                    let b_still = self.moves(&ab).contains(&b) && Made::at(&ab, b) == made_b;
                    self.make(&mut ba, b);
                    let a_still = self.moves(&ba).contains(&a) && Made::at(&ba, a) == made_a;
                    if !(a_still && b_still) {
                        return Err(format!("{a:?} and {b:?} take each other away in {world:?}"));
                    }
                    self.make(&mut ab, b);
                    self.make(&mut ba, a);
                    // Who was told first is no part of what they were told.
                    ab.told.sort_unstable();
                    ba.told.sort_unstable();
                    if ab != ba {
                        return Err(format!("{a:?} and {b:?} do not commute in {world:?}"));
                    }
                }
            }
            for one in moves {
                let mut next = world.clone();
                self.make(&mut next, one);
                stack.push(next);
            }
        }
        Ok(seen.len())
    }
}
