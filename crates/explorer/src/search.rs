//! Every schedule of a number of copies: a depth-first walk over the
//! choice of which copy moves next, each schedule run once on the server.

use crate::error::ExploreError;
use crate::report::{Choice, Report};
use crate::run::{Target, run_schedule};

/// What to explore.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The design's name, for the report (`naive`, …).
    pub design: String,
    /// How many copies of the order are sent (2 or 3).
    pub copies: u8,
    /// Whether each schedule may also crash one copy at any gate (its
    /// client then retries with the same key).
    pub crash: bool,
    /// The most schedules to run; more is an error, not a silent cut.
    pub max_schedules: usize,
}

/// Runs every schedule of `plan.copies` copies on `target`.
///
/// Each run follows a prefix of choices and then always releases the
/// lowest copy that can move, writing down the other choices there were
/// at each point (the other copies; with crashes, crashing any of them);
/// each such alternative, taken at that point, is the prefix of another
/// run. So every complete schedule is run exactly
/// once, and nothing but the server decides which copies can move.
pub async fn explore(target: &Target, plan: &Plan) -> Result<Report, ExploreError> {
    let mut report = Report {
        design: plan.design.clone(),
        copies: plan.copies,
        crash: plan.crash,
        runs: Vec::new(),
    };
    let mut prefixes: Vec<Vec<Choice>> = vec![Vec::new()];
    while let Some(prefix) = prefixes.pop() {
        if report.runs.len() >= plan.max_schedules {
            return Err(ExploreError::TooMany(plan.max_schedules));
        }
        let run = run_schedule(target, plan.copies, &prefix, plan.crash).await?;
        for at in prefix.len()..run.schedule.len() {
            let chosen = run.schedule[at];
            for &other in run.enabled[at].iter().filter(|&&other| other > chosen) {
                let mut next = run.schedule[..at].to_vec();
                next.push(other);
                prefixes.push(next);
            }
        }
        report.runs.push(run);
    }
    report.runs.sort_by(|a, b| a.schedule.cmp(&b.schedule));
    Ok(report)
}
