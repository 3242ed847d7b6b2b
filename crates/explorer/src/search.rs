//! Every schedule of a number of copies: a depth-first walk over the
//! choice of which copy moves next, each schedule run once on the server,
//! a few at a time.

use tokio::task::JoinSet;

use crate::error::ExploreError;
use crate::report::{Choice, Crashes, Report, ScheduleRun};
use crate::run::{Start, run_from};
use crate::target::Target;

/// How many schedules run at once unless told otherwise. A schedule
/// mostly waits for round trips, so on two cores eight overlap well
/// (naive's 66 schedules on SQLite: 3.7 s one at a time, 1.0 s four at
/// a time, 0.6 s eight; transactional's 656 on PostgreSQL: 44.6 s,
/// 11.3 s, 6.7 s), and eight schedules of three copies hold at most 24 of
/// PostgreSQL's 64 transaction connections.
pub const DEFAULT_JOBS: usize = 8;

/// What to explore.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The design's name, for the report (`naive`, …).
    pub design: String,
    /// How many copies of the order are sent (2 or 3).
    pub copies: u8,
    /// Which crash each schedule may also make (its client then retries
    /// with the same key).
    pub crash: Crashes,
    /// The most schedules to run; more is an error, not a silent cut.
    pub max_schedules: usize,
    /// How many schedules run at once. Each has a lab and a key of its
    /// own, so they cannot meet in the database; most of a schedule's time
    /// is spent waiting for round trips, which several overlap.
    pub jobs: usize,
    /// At most this many preemptions per schedule (`None`: every
    /// schedule). A preemption is a switch away from a copy that could
    /// still have moved; CHESS showed that most concurrency bugs need
    /// very few, and three copies without a bound have tens of
    /// thousands of schedules.
    pub preemptions: Option<usize>,
    /// Run one schedule of each set of equivalent ones (they differ only
    /// by moves that commute; see `reduce`) instead of every one. Not
    /// with a bound on preemptions, which would cut the sets unevenly.
    pub reduce: bool,
}

/// The bound used for three copies unless told otherwise, as CHESS suggests.
pub const PREEMPTIONS_FOR_THREE: usize = 2;

/// Runs every schedule of `plan.copies` copies on `target` (within the
/// plan's preemption bound, if it has one).
///
/// Each run follows a prefix of choices and then lets the copy that moved
/// last go on while it can (else the lowest that can move), writing down
/// the other choices there were at each point (the other copies; with
/// crashes, crashing any of them); each such alternative, taken at that
/// point, is the prefix of another run, unless it passes the bound. So
/// every complete schedule is run exactly once, and nothing but the
/// server decides which copies can move. Which runs overlap changes only
/// when each is found, not which are: the report is sorted.
pub async fn explore(target: &Target, plan: &Plan) -> Result<Report, ExploreError> {
    explore_reporting(target, plan, |_| {}).await
}

/// [`explore`], calling `each_run` with every schedule as it finishes.
pub async fn explore_reporting(
    target: &Target,
    plan: &Plan,
    mut each_run: impl FnMut(&ScheduleRun),
) -> Result<Report, ExploreError> {
    if plan.reduce && plan.preemptions.is_some() {
        return Err(ExploreError::Plan(
            "a reduced exploration runs one schedule of each set of equivalent ones, \
             which a bound on preemptions would cut unevenly: ask for one or the other",
        ));
    }
    let mut report = Report {
        design: plan.design.clone(),
        copies: plan.copies,
        crash: plan.crash,
        preemptions: plan.preemptions,
        reduced: plan.reduce,
        cut_short: 0,
        runs: Vec::new(),
    };
    let first = Start {
        choices: Vec::new(),
        asleep: plan.reduce.then(Vec::new),
    };
    let mut starts: Vec<Start> = vec![first];
    let mut running = JoinSet::new();
    let mut started = 0;
    loop {
        while running.len() < plan.jobs.max(1) {
            let Some(start) = starts.pop() else { break };
            if started >= plan.max_schedules {
                return Err(ExploreError::TooMany(plan.max_schedules));
            }
            started += 1;
            let (target, copies, crash) = (target.clone(), plan.copies, plan.crash);
            running.spawn(async move {
                let ran = run_from(&target, copies, &start, crash).await;
                (start.choices.len(), ran)
            });
        }
        let Some(finished) = running.join_next().await else {
            break;
        };
        let (followed, ran) = finished
            .map_err(|error| ExploreError::Stream(format!("a schedule's run failed: {error}")))?;
        let ran = ran?;
        starts.extend(ran.branches);
        let Some(run) = ran.run else {
            // Every choice left was asleep: equivalent to a schedule run.
            report.cut_short += 1;
            continue;
        };
        if !plan.reduce {
            starts.extend(
                alternatives(&run, followed, plan.preemptions)
                    .into_iter()
                    .map(|choices| Start {
                        choices,
                        asleep: None,
                    }),
            );
        }
        each_run(&run);
        report.runs.push(run);
    }
    report.runs.sort_by(|a, b| a.schedule.cmp(&b.schedule));
    Ok(report)
}

/// The prefixes of the schedules `run` did not take after its first
/// `followed` choices (the ones it was asked to make): at each later point,
/// every other choice that was enabled there, unless it makes more
/// preemptions than `bound`.
fn alternatives(run: &ScheduleRun, followed: usize, bound: Option<usize>) -> Vec<Vec<Choice>> {
    let mut prefixes = Vec::new();
    for at in followed..run.schedule.len() {
        let chosen = run.schedule[at];
        for &other in run.enabled[at].iter().filter(|&&other| other != chosen) {
            let mut next = run.schedule[..at].to_vec();
            next.push(other);
            if bound.is_none_or(|bound| preemptions(&next, &run.enabled) <= bound) {
                prefixes.push(next);
            }
        }
    }
    prefixes
}

/// How many times `schedule` switches away from a copy that could still
/// have moved then; `enabled[i]` holds the choices there were before the
/// `i`-th.
fn preemptions(schedule: &[Choice], enabled: &[Vec<Choice>]) -> usize {
    (1..schedule.len())
        .filter(|&at| {
            let (before, now) = (schedule[at - 1].copy(), schedule[at].copy());
            now != before && enabled[at].contains(&Choice::Release(before))
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn releases(copies: &[u8]) -> Vec<Choice> {
        copies.iter().map(|&copy| Choice::Release(copy)).collect()
    }

    #[test]
    fn a_switch_counts_as_a_preemption_only_when_the_copy_left_could_still_move() {
        let both = releases(&[1, 2]);
        let only_1 = releases(&[1]);
        // 1 → 2 while 1 could go on: one; 2 → 1 once 2 has ended: none.
        let enabled = vec![both.clone(), both.clone(), both.clone(), only_1];
        assert_eq!(preemptions(&releases(&[1, 2, 2, 1]), &enabled), 1);
        let enabled = vec![both.clone(), both.clone(), both.clone()];
        assert_eq!(preemptions(&releases(&[1, 2, 1]), &enabled), 2);
        assert_eq!(preemptions(&releases(&[1, 1, 1]), &enabled), 0);
        // A crash of another copy is a switch like a release.
        let crash = [Choice::Release(1), Choice::Crash(2)];
        assert_eq!(preemptions(&crash, &[both.clone(), both]), 1);
    }
}
