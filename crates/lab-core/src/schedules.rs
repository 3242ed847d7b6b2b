//! Schedules: copies of one order that run their statements in the order
//! someone chooses, one release at a time.
//!
//! `POST /schedules` opens a schedule in a lab; each `POST /orders` sent
//! with `Lab-Schedule: ID` joins it as its next copy and, through the
//! [`Turnstile`] it carries, stops at a gate before each statement (see
//! `lab_platform::gates`), reporting a `at-gate` step that says what it will
//! do next. `POST /schedules/ID/release` lets one copy through its gate; it
//! runs to its next gate, or to its end. A learner stepping the copies by
//! hand and the explorer trying every order both drive it.
//!
//! A schedule holds requests open, so it is counted like them: a few per
//! lab, a few copies each, a cap over the server, and, as a last resort
//! (labelled as such, never what a test waits on), a schedule nobody has
//! touched for [`IDLE_LIMIT`] is closed and its copies run on unscheduled,
//! so a closed tab cannot hold its lab's places, or a PostgreSQL
//! transaction, for longer than that.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use futures::future::AbortHandle;
use lab_platform::{Db, LabError, error::ScheduleRefused};
use lab_wire::{CopyState, LabId, ScheduleView};
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::steps::Steps;

/// The most copies one schedule holds (two or three racing copies, and a
/// retry after a crash).
pub const COPIES_PER_SCHEDULE: usize = 4;
/// The most schedules a lab holds open at once.
pub const SCHEDULES_PER_LAB: usize = 2;
/// The most schedules the server holds open, over every lab.
pub const SCHEDULES_PER_SERVER: usize = 256;
pub use schedule::ScheduledRequest;
/// How long a schedule lives untouched, and how long a release waits for its copy.
pub use schedule::{IDLE_LIMIT, SETTLE_LIMIT};

use schedule::{Entry, Schedule, ScheduleState};

mod schedule;

/// A server's open schedules, by lab; clones share them.
#[derive(Debug, Clone, Default)]
pub struct Schedules {
    labs: Arc<Mutex<HashMap<LabId, Vec<Arc<Schedule>>>>>,
}

impl Schedules {
    /// Opens a new schedule in `lab`.
    pub fn open(&self, lab: &LabId) -> Result<ScheduleView, LabError> {
        let mut labs = self.lock();
        close_idle(&mut labs);
        let open_here = labs.get(lab).map_or(0, Vec::len);
        if open_here >= SCHEDULES_PER_LAB {
            return Err(ScheduleRefused::TooMany(open_here).into());
        }
        if labs.values().map(Vec::len).sum::<usize>() >= SCHEDULES_PER_SERVER {
            return Err(ScheduleRefused::ServerFull.into());
        }
        let schedule = Arc::new(Schedule {
            id: format!("sch_{}", uuid::Uuid::new_v4().simple()),
            state: Mutex::new(ScheduleState {
                copies: Vec::new(),
                touched: Instant::now(),
                closed: false,
            }),
            changed: Notify::new(),
        });
        let view = schedule.view();
        labs.entry(lab.clone()).or_default().push(schedule);
        Ok(view)
    }

    /// Where the copies of `lab`'s schedule `id` stand.
    pub fn view(&self, lab: &LabId, id: &str) -> Result<ScheduleView, LabError> {
        let schedule = self.find(lab, id).ok_or_else(|| not_found(id))?;
        schedule.touch();
        Ok(schedule.view())
    }

    /// Lets copy `copy` of `lab`'s schedule `id` through the gate it waits
    /// at; it runs on to its next gate or its end.
    pub fn release(&self, lab: &LabId, id: &str, copy: u8) -> Result<ScheduleView, LabError> {
        let schedule = self.move_copy(lab, id, copy, |entry| entry.released = true)?;
        Ok(schedule.view())
    }

    /// Sets copy `copy`, waiting at a gate, running, does `how` to it, and
    /// wakes whoever waits on the schedule.
    fn move_copy(
        &self,
        lab: &LabId,
        id: &str,
        copy: u8,
        how: impl FnOnce(&mut Entry),
    ) -> Result<Arc<Schedule>, LabError> {
        let schedule = self.find(lab, id).ok_or_else(|| not_found(id))?;
        {
            let mut state = schedule.lock();
            state.touched = Instant::now();
            let entry = waiting_copy(&mut state, copy)?;
            entry.state = CopyState::Running;
            how(entry);
        }
        schedule.changed.notify_waiters();
        Ok(schedule)
    }

    /// Releases copy `copy` (see [`Self::release`]) and waits until every
    /// copy has settled: stopped at a gate, finished, or blocked, which
    /// PostgreSQL's `pg_blocking_pids` (or the server's own lock) says, not
    /// a timer; a copy the release unblocked is waited for too. Answers
    /// with the schedule as it then stands.
    pub async fn release_and_settle(
        &self,
        db: &Db,
        lab: &LabId,
        id: &str,
        copy: u8,
    ) -> Result<ScheduleView, LabError> {
        let schedule = self.move_copy(lab, id, copy, |entry| entry.released = true)?;
        schedule.settle(db).await?;
        Ok(schedule.view())
    }

    /// Ends copy `copy`'s work at the gate it waits at, as if the server
    /// died there: no statement after it runs, its open transaction is
    /// dropped (the database rolls it back), its client gets no answer.
    /// Answers, like a release, once every copy has settled.
    pub async fn crash_and_settle(
        &self,
        db: &Db,
        lab: &LabId,
        id: &str,
        copy: u8,
    ) -> Result<ScheduleView, LabError> {
        let schedule = self.move_copy(lab, id, copy, |entry| entry.crash.abort())?;
        schedule.settle(db).await?;
        Ok(schedule.view())
    }

    /// Closes `lab`'s schedule `id`: its copies run on unscheduled.
    pub fn close(&self, lab: &LabId, id: &str) -> Result<(), LabError> {
        let mut labs = self.lock();
        let schedules = labs.get_mut(lab).ok_or_else(|| not_found(id))?;
        let at = schedules
            .iter()
            .position(|schedule| schedule.id == id)
            .ok_or_else(|| not_found(id))?;
        schedules.remove(at).close();
        if schedules.is_empty() {
            labs.remove(lab);
        }
        Ok(())
    }

    /// Adds the request `steps` reports for to `lab`'s schedule `id`, as
    /// its next copy (the `Lab-Schedule` header).
    /// `crash` ends its work where it stands, as a process that died there
    /// would (see [`Self::crash_and_settle`]).
    pub fn join(
        &self,
        lab: &LabId,
        id: &str,
        steps: &Steps,
        crash: AbortHandle,
    ) -> Result<ScheduledRequest, LabError> {
        let unknown = || LabError::from(ScheduleRefused::UnknownOnRequest(id.to_owned()));
        let schedule = self.find(lab, id).ok_or_else(unknown)?;
        let index = {
            let mut state = schedule.lock();
            if state.closed {
                return Err(unknown());
            }
            if state.copies.len() >= COPIES_PER_SCHEDULE {
                let (id, copies) = (id.to_owned(), state.copies.len());
                return Err(ScheduleRefused::Full { id, copies }.into());
            }
            state.touched = Instant::now();
            state.copies.push(Entry::new(steps, crash));
            state.copies.len() - 1
        };
        Ok(ScheduledRequest { schedule, index })
    }

    fn find(&self, lab: &LabId, id: &str) -> Option<Arc<Schedule>> {
        let mut labs = self.lock();
        close_idle(&mut labs);
        labs.get(lab)?
            .iter()
            .find(|schedule| schedule.id == id)
            .cloned()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<LabId, Vec<Arc<Schedule>>>> {
        // The map holds no invariant a panic could break half-way.
        self.labs.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Closes and forgets every schedule left untouched for [`IDLE_LIMIT`].
fn close_idle(labs: &mut HashMap<LabId, Vec<Arc<Schedule>>>) {
    let now = Instant::now();
    labs.retain(|_, schedules| {
        schedules.retain(|schedule| {
            let idle = schedule.lock().touched + IDLE_LIMIT <= now;
            if idle {
                schedule.close();
            }
            !idle
        });
        !schedules.is_empty()
    });
}

/// Copy `copy` of a schedule, if it waits at a gate.
fn waiting_copy(state: &mut ScheduleState, copy: u8) -> Result<&mut Entry, LabError> {
    let entry = usize::from(copy)
        .checked_sub(1)
        .and_then(|index| state.copies.get_mut(index));
    let Some(entry) = entry else {
        let state = "no such copy in this schedule";
        return Err(ScheduleRefused::NotAtGate { copy, state }.into());
    };
    if !matches!(entry.state, CopyState::AtGate { .. }) {
        let state = match entry.state {
            CopyState::Finished => "it has finished",
            _ => "it is running",
        };
        return Err(ScheduleRefused::NotAtGate { copy, state }.into());
    }
    Ok(entry)
}

fn not_found(id: &str) -> LabError {
    ScheduleRefused::NotFound(id.to_owned()).into()
}

#[cfg(test)]
mod tests;
