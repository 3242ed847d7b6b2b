//! The model's complete schedules, in the explorer's notation, and the
//! ones that broke the promise.

use std::collections::BTreeSet;

use super::{DesignModel, Move};

impl DesignModel {
    /// Every complete schedule within the bound, as the explorer writes
    /// it, and whether it kept the promise of one order.
    pub fn schedules(&self) -> Vec<(String, bool)> {
        let mut done = Vec::new();
        let mut stack = vec![(self.initial(), Vec::<Move>::new(), 0)];
        while let Some((world, path, preempted)) = stack.pop() {
            let moves = self.moves(&world);
            if moves.is_empty() {
                let text: Vec<String> = path.iter().map(|one| one.text()).collect();
                done.push((text.join(" "), world.kept_the_promise()));
                continue;
            }
            for &one in &moves {
                // A switch away from a copy that could still have moved.
                let left = path.last().filter(|last| last.copy() != one.copy());
                let preempts = left.is_some_and(|l| moves.contains(&Move::Release(l.copy())));
                let preempted = preempted + usize::from(preempts);
                if self.preemptions.is_some_and(|bound| preempted > bound) {
                    continue;
                }
                let mut next = world.clone();
                self.make(&mut next, one);
                let mut longer = path.clone();
                longer.push(one);
                stack.push((next, longer, preempted));
            }
        }
        done.sort();
        done
    }

    /// The shortest schedule that broke the promise (fewest moves, then
    /// the first in order), as the explorer picks it.
    pub fn shortest_counterexample(&self) -> Option<String> {
        self.broken()
            .into_iter()
            .min_by_key(|schedule| (schedule.split(' ').count(), schedule.clone()))
    }

    /// The schedules that broke the promise.
    pub fn broken(&self) -> BTreeSet<String> {
        self.schedules()
            .into_iter()
            .filter(|(_, kept)| !kept)
            .map(|(schedule, _)| schedule)
            .collect()
    }
}
