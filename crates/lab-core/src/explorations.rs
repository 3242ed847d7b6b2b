//! Explorations: a server runs every schedule of a few copies of one order
//! for a lab (`POST /explorations`), through its own schedule API, and
//! keeps what each schedule left for the lab to read.
//!
//! It is the `explorer` crate's search, run by the server against itself
//! over HTTP, so every schedule goes through the same routes, gates and
//! database as a learner's copies. Each schedule runs in a lab of its own
//! (a fresh secret) that is forgotten once read, so nothing is left in the
//! shared database. An exploration runs hundreds of requests, so it is a
//! lab's resource like its requests in progress: one per lab at a time
//! (429), [`RUNNING_PER_SERVER`] over the server (503), holding as many of
//! the lab's requests in progress as its schedules can have at once, at
//! most [`MOST_SCHEDULES`] schedules. A finished one is kept for
//! [`KEPT_FOR`], or until the lab starts another.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use explorer::{Crashes, Plan, Target};
use futures::future::{AbortHandle, Abortable};
use lab_platform::limits::Room;
use lab_platform::{LabError, error::ScheduleRefused};
use lab_wire::{ExplorationAsk, ExplorationState, ExplorationView, ExploredSchedule, LabId};
use tokio::sync::Notify;
use tokio::time::Instant;

/// Explorations the server runs at once, over every lab and design: each
/// keeps a few requests moving all the time, on a server shared by a room.
pub const RUNNING_PER_SERVER: usize = 2;
/// Schedules running at once in one exploration.
pub const JOBS: usize = 2;
/// The most schedules one exploration runs (naive, 2 copies, with a crash
/// anywhere, needs 1,594); one that needs more fails and says so.
pub const MOST_SCHEDULES: usize = 2_000;
/// How long a finished exploration is kept for its lab to read.
pub const KEPT_FOR: Duration = Duration::from_secs(30 * 60);
/// The most explorations kept over every lab; past it the oldest goes.
pub const KEPT_IN_ALL: usize = 64;
/// The longest a read waits for an exploration to end (`Prefer: wait=N`):
/// within the default request deadline of 30 s.
pub const LONGEST_WAIT: Duration = Duration::from_secs(20);

/// The explorations of every design of a server (the launcher shares one
/// between its designs and replicas); clones share them.
#[derive(Debug, Clone, Default)]
pub struct Explorations {
    inner: Arc<Mutex<Inner>>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Where each design's `POST /orders` is reached from this process.
    orders_urls: HashMap<&'static str, String>,
    /// The latest exploration of each lab.
    labs: HashMap<LabId, Arc<Exploration>>,
}

#[derive(Debug)]
struct Exploration {
    id: String,
    design: &'static str,
    asked: ExplorationAsk,
    started: Instant,
    stop: AbortHandle,
    progress: Mutex<Progress>,
    /// Told when it stops running: finished, failed or stopped.
    ended: Notify,
}

#[derive(Debug)]
struct Progress {
    state: ExplorationState,
    detail: Option<String>,
    summary: Option<String>,
    schedules: Vec<ExploredSchedule>,
}

impl Explorations {
    /// Says where `design`'s `POST /orders` is reached from this process
    /// (`http://127.0.0.1:PORT/api/naive/orders`), once the server is bound.
    pub fn serve_at(&self, design: &'static str, orders_url: String) {
        self.lock().orders_urls.insert(design, orders_url);
    }

    /// Starts exploring `design` for `lab`, as `asked`, holding the lab's
    /// requests in progress in `room` while it runs.
    pub fn start(
        &self,
        lab: &LabId,
        design: &'static str,
        asked: ExplorationAsk,
        room: &Room,
    ) -> Result<ExplorationView, LabError> {
        if !lab_wire::exploration::EXPLORATION_COPIES.contains(&asked.copies) {
            return Err(LabError::InvalidRecord(format!(
                "copies: {} copies cannot be explored; send 2 or 3",
                asked.copies
            )));
        }
        let mut inner = self.lock();
        let orders_url = inner
            .orders_urls
            .get(design)
            .cloned()
            .ok_or(ScheduleRefused::CannotExplore)?;
        forget_old(&mut inner.labs);
        if let Some(running) = inner.labs.get(lab).filter(|exploration| exploration.runs()) {
            return Err(ScheduleRefused::Exploring(running.id.clone()).into());
        }
        let running = inner.labs.values().filter(|e| e.runs()).count();
        if running >= RUNNING_PER_SERVER {
            return Err(ScheduleRefused::ExplorationsFull(running).into());
        }
        // Every copy of every schedule running at once, and the retry after a crash.
        let at_once = JOBS * (usize::from(asked.copies) + usize::from(asked.crash));
        let admission = room.admit_many(lab, u32::try_from(at_once).unwrap_or(u32::MAX))?;
        let (stop, stopped) = AbortHandle::new_pair();
        let exploration = Arc::new(Exploration {
            id: format!("exp_{}", uuid::Uuid::new_v4().simple()),
            design,
            asked,
            started: Instant::now(),
            stop,
            progress: Mutex::new(Progress {
                state: ExplorationState::Running,
                detail: None,
                summary: None,
                schedules: Vec::new(),
            }),
            ended: Notify::new(),
        });
        if let Some(replaced) = inner.labs.insert(lab.clone(), exploration.clone()) {
            replaced.stop.abort();
        }
        let view = exploration.view();
        let running = exploration.clone();
        let work = async move {
            let _admission = admission;
            running
                .run(Target::new(orders_url).forgetting_each_lab())
                .await;
        };
        tokio::spawn(Abortable::new(work, stopped));
        Ok(view)
    }

    /// `lab`'s exploration `id` of `design`, once it has ended or `wait`
    /// (at most [`LONGEST_WAIT`]) has passed, whichever comes first.
    pub async fn view(
        &self,
        lab: &LabId,
        design: &'static str,
        id: &str,
        wait: Duration,
    ) -> Result<ExplorationView, LabError> {
        let exploration = self.find(lab, design, id)?;
        let ended = exploration.ended.notified();
        if exploration.runs() {
            // Running when the wait began: it will be told when it ends.
            let _ = tokio::time::timeout(wait.min(LONGEST_WAIT), ended).await;
        }
        Ok(exploration.view())
    }

    /// Stops `lab`'s exploration `id` of `design` if it runs, and forgets it.
    pub fn stop(&self, lab: &LabId, design: &'static str, id: &str) -> Result<(), LabError> {
        // Found and removed under one lock: between two, the lab could
        // have started another exploration, which this must not stop.
        let mut inner = self.lock();
        forget_old(&mut inner.labs);
        let Entry::Occupied(found) = inner.labs.entry(lab.clone()) else {
            return Err(ScheduleRefused::ExplorationNotFound(id.to_owned()).into());
        };
        if found.get().id != id || found.get().design != design {
            return Err(ScheduleRefused::ExplorationNotFound(id.to_owned()).into());
        }
        let exploration = found.remove();
        exploration.stop.abort();
        exploration.ended.notify_waiters();
        Ok(())
    }

    fn find(
        &self,
        lab: &LabId,
        design: &'static str,
        id: &str,
    ) -> Result<Arc<Exploration>, LabError> {
        let mut inner = self.lock();
        forget_old(&mut inner.labs);
        inner
            .labs
            .get(lab)
            .filter(|exploration| exploration.id == id && exploration.design == design)
            .cloned()
            .ok_or_else(|| ScheduleRefused::ExplorationNotFound(id.to_owned()).into())
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // The maps hold no invariant a panic could break half-way.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Forgets finished explorations kept longer than [`KEPT_FOR`], then the
/// oldest finished ones past [`KEPT_IN_ALL`].
fn forget_old(labs: &mut HashMap<LabId, Arc<Exploration>>) {
    labs.retain(|_, exploration| exploration.runs() || exploration.started.elapsed() < KEPT_FOR);
    while labs.len() > KEPT_IN_ALL {
        let oldest = labs
            .iter()
            .filter(|(_, exploration)| !exploration.runs())
            .min_by_key(|(_, exploration)| exploration.started)
            .map(|(lab, _)| lab.clone());
        let Some(oldest) = oldest else { break };
        labs.remove(&oldest);
    }
}

impl Exploration {
    fn runs(&self) -> bool {
        self.lock().state == ExplorationState::Running
    }

    fn lock(&self) -> MutexGuard<'_, Progress> {
        self.progress.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn view(&self) -> ExplorationView {
        let progress = self.lock();
        ExplorationView {
            id: self.id.clone(),
            design: self.design.to_owned(),
            asked: self.asked,
            state: progress.state,
            detail: progress.detail.clone(),
            summary: progress.summary.clone(),
            schedules: progress.schedules.clone(),
        }
    }

    /// Runs every schedule on `target`, writing each down as it ends.
    async fn run(&self, target: Target) {
        let plan = Plan {
            design: self.design.to_owned(),
            copies: self.asked.copies,
            crash: if self.asked.crash {
                Crashes::AnyGate
            } else {
                Crashes::Never
            },
            max_schedules: MOST_SCHEDULES,
            jobs: JOBS,
            preemptions: (self.asked.copies == 3).then_some(explorer::PREEMPTIONS_FOR_THREE),
            // The page shows every schedule, one tile each.
            reduce: false,
        };
        let explored = explorer::explore_reporting(&target, &plan, |run| {
            self.lock().schedules.push(run.explored());
        })
        .await;
        let mut progress = self.lock();
        match explored {
            Ok(report) => {
                progress.state = ExplorationState::Finished;
                progress.summary = Some(report.summary());
                progress.schedules = shortest_first(&report);
            }
            Err(error) => {
                tracing::warn!(design = self.design, %error, "an exploration failed");
                progress.state = ExplorationState::Failed;
                progress.detail = Some(error.to_string());
            }
        }
        drop(progress);
        self.ended.notify_waiters();
    }
}

/// The report's schedules, shortest first, then in order.
fn shortest_first(report: &explorer::Report) -> Vec<ExploredSchedule> {
    report
        .runs_shortest_first()
        .map(explorer::ScheduleRun::explored)
        .collect()
}

#[cfg(test)]
mod tests;
