//! The explorer: runs **every** order in which copies of one order can
//! pass their statement gates, each on a fresh key in a lab of its own, on
//! a real order server and its real database, and says which orders of
//! statements left more than one order for the key.
//!
//! It drives a server's schedule API (`POST /schedules`, `Lab-Schedule`,
//! `POST /schedules/ID/copies/N/release`; docs/http-api.md): every copy
//! stops at a gate before each statement, a release moves one copy one
//! statement on, and the server answers once every copy has settled (at a
//! gate, finished, or blocked by another copy's transaction or lock). A
//! schedule is the list of copies released, in order (`1 2 1 1 2 2 …`); a
//! blocked copy cannot be chosen until it moves by itself.
//!
//! The search is a depth-first walk over those choices without a model of
//! the server: each run follows a prefix, then lets the copy that moved
//! last go on while it can, and records which others could have moved at
//! each point; every one of those alternatives becomes a prefix to run,
//! unless it passes a bound on preemptions (for three copies). Each
//! complete schedule is run exactly once; or, reduced (`reduce`), one
//! schedule of each set that differ only by moves that commute.

mod error;
pub mod reduce;
mod report;
mod run;
mod search;
mod steps;
mod target;

pub use error::ExploreError;
pub use report::{
    Answer, Choice, Crashes, Move, Report, ScheduleRun, parse_schedule, schedule_text,
};
pub use run::run_schedule;
pub use search::{DEFAULT_JOBS, PREEMPTIONS_FOR_THREE, Plan, explore, explore_reporting};
pub use target::Target;
