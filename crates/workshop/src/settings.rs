//! How long the workshop keeps runs and how many per lab, and what its
//! routes share.

use axum::extract::FromRef;
use lab_platform::Db;
use lab_platform::access::TeacherToken;
use lab_platform::limits::Room;

/// How long runs are kept and how many per lab.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct WorkshopArgs {
    /// Days a saved run (and its permalink) is kept; a lab's lesson progress
    /// is forgotten after as many days without a step
    #[arg(long, env = "LAB_KEEP_RUNS_DAYS", default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..=365))]
    pub keep_runs_days: u32,
    /// The most runs one lab keeps; saving one more deletes its oldest
    #[arg(long, env = "LAB_MAX_RUNS_PER_LAB", default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub max_runs_per_lab: u32,
}

impl Default for WorkshopArgs {
    fn default() -> Self {
        Self {
            keep_runs_days: 7,
            max_runs_per_lab: 50,
        }
    }
}

impl WorkshopArgs {
    pub fn retention(&self) -> chrono::Duration {
        chrono::Duration::days(i64::from(self.keep_runs_days))
    }
}

/// What the workshop's routes share.
#[derive(Clone)]
pub struct WorkshopState {
    pub db: Db,
    pub teacher: TeacherToken,
    pub settings: WorkshopArgs,
    /// The room's limits: a lab's saves count among its requests in
    /// progress, as its orders do.
    pub room: Room,
}

impl FromRef<WorkshopState> for TeacherToken {
    fn from_ref(state: &WorkshopState) -> Self {
        state.teacher.clone()
    }
}
