//! One schedule: its copies, where each stands, and the turnstile each
//! copy's gates wait on (see the parent module for what a schedule is).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use futures::future::AbortHandle;
use lab_platform::gates::Turnstile;
use lab_platform::{Db, LabError};
use lab_wire::{BlockedOn, CopyState, Gate, ScheduleView, ScheduledCopy, StepKind};
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::steps::Steps;

/// How long a schedule lives without being touched (a copy joining, a
/// release, a read); then it is closed and its copies run on unscheduled.
pub const IDLE_LIMIT: Duration = Duration::from_secs(60);
/// How often a release asks PostgreSQL whether the released statement
/// waits for a lock, while it runs (a statement takes a millisecond or two;
/// one that is still running after this is looked at).
const BLOCKED_POLL: Duration = Duration::from_millis(5);
/// The last resort, labelled as such: a release answers after this long
/// even if its copy has neither reached a gate nor been found blocked (a
/// slow disk, say), with the copy `running`.
pub const SETTLE_LIMIT: Duration = Duration::from_secs(10);

/// One open schedule.
#[derive(Debug)]
pub(super) struct Schedule {
    pub(super) id: String,
    pub(super) state: Mutex<ScheduleState>,
    /// Woken on every release and on closing.
    pub(super) changed: Notify,
}

#[derive(Debug)]
pub(super) struct ScheduleState {
    pub(super) copies: Vec<Entry>,
    pub(super) touched: Instant,
    pub(super) closed: bool,
}

#[derive(Debug)]
pub(super) struct Entry {
    /// Where its steps are reported (a blocked step comes from the release).
    steps: Steps,
    pub(super) state: CopyState,
    pub(super) released: bool,
    /// The PostgreSQL backend of its next statement, reported when the
    /// statement gets its connection; forgotten at each gate.
    statement_backend: Option<i32>,
    /// The PostgreSQL backend of its open transaction.
    transaction_backend: Option<i32>,
    /// Whether it waits for the server's own lock (the locked design).
    waits_for_lock: bool,
    /// Whether it holds that lock.
    holds_lock: bool,
    /// Ends its work where it stands (a crash).
    pub(super) crash: AbortHandle,
}

impl Entry {
    pub(super) fn new(steps: &Steps, crash: AbortHandle) -> Self {
        Self {
            crash,
            steps: steps.clone(),
            state: CopyState::Running,
            released: false,
            statement_backend: None,
            transaction_backend: None,
            waits_for_lock: false,
            holds_lock: false,
        }
    }

    /// The backend its running statement is on, if known.
    fn backend(&self) -> Option<i32> {
        self.statement_backend.or(self.transaction_backend)
    }

    fn runs_on_any(&self, backends: &[i32]) -> bool {
        self.backend().is_some_and(|pid| backends.contains(&pid))
    }
}

/// A request's place in a schedule: the turnstile its gates wait on.
#[derive(Debug)]
pub struct ScheduledRequest {
    pub(super) schedule: Arc<Schedule>,
    pub(super) index: usize,
}

impl Schedule {
    pub(super) fn lock(&self) -> MutexGuard<'_, ScheduleState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn touch(&self) {
        self.lock().touched = Instant::now();
    }

    pub(super) fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_waiters();
    }

    /// Waits until every copy has settled: stopped at a gate, finished, or
    /// blocked by something another copy holds (PostgreSQL's
    /// `pg_blocking_pids` for the backend its statement runs on, or the
    /// server's own lock). A copy found blocked is marked so and reported;
    /// one that was blocked and no longer is runs on, and is waited for.
    pub(super) async fn settle(&self, db: &Db) -> Result<(), LabError> {
        let give_up_at = Instant::now() + SETTLE_LIMIT;
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let moving: Vec<(usize, Option<i32>, bool)> = {
                let state = self.lock();
                if state.closed {
                    return Ok(());
                }
                let unsettled = |entry: &&Entry| {
                    matches!(entry.state, CopyState::Running | CopyState::Blocked { .. })
                };
                let copies = state.copies.iter().enumerate();
                copies
                    .filter(|(_, entry)| unsettled(entry))
                    .map(|(index, entry)| (index, entry.backend(), entry.waits_for_lock))
                    .collect()
            };
            let mut all_blocked = true;
            for (index, backend, waits_for_lock) in moving {
                match self.what_blocks(db, backend, waits_for_lock).await? {
                    // A crashed holder's transaction is being rolled back
                    // (its connection was dropped, the ROLLBACK is on its
                    // way): the copy it blocked is about to move, not
                    // blocked, and is waited for.
                    Some((_, Some(holder))) if self.has_ended(holder) => all_blocked = false,
                    Some((on, holder)) => self.block(index, on, holder),
                    None => {
                        self.unblock(index);
                        all_blocked = false;
                    }
                }
            }
            if all_blocked {
                return Ok(());
            }
            tokio::select! {
                () = &mut changed => {}
                () = tokio::time::sleep(BLOCKED_POLL) => {}
                () = tokio::time::sleep_until(give_up_at) => return Ok(()),
            }
        }
    }

    /// What keeps a copy from going on, and which copy (an index) holds
    /// it: the server's lock it waits for, or the backends PostgreSQL says
    /// its statement's backend waits for.
    async fn what_blocks(
        &self,
        db: &Db,
        backend: Option<i32>,
        waits_for_lock: bool,
    ) -> Result<Option<(BlockedOn, Option<usize>)>, LabError> {
        if waits_for_lock {
            // Blocked only while another copy holds the lock: with none
            // holding it, the copy is about to take it (or has just taken
            // it and not yet said so), and is waited for.
            let state = self.lock();
            let holder = state.copies.iter().position(|entry| entry.holds_lock);
            return Ok(holder.map(|holder| (BlockedOn::ServerLock, Some(holder))));
        }
        let Some(pid) = backend else {
            return Ok(None);
        };
        let blockers = db.blocking_backends(pid).await?;
        if blockers.is_empty() {
            return Ok(None);
        }
        // A copy still running first: a crashed copy's connection may
        // already serve another copy's transaction.
        let state = self.lock();
        let holds = |entry: &Entry| entry.runs_on_any(&blockers);
        let holder = (state.copies.iter())
            .position(|entry| entry.state != CopyState::Finished && holds(entry))
            .or_else(|| state.copies.iter().position(holds));
        Ok(Some((BlockedOn::Database, holder)))
    }

    /// Whether copy `index` has ended (answered, failed or crashed).
    fn has_ended(&self, index: usize) -> bool {
        self.lock().copies[index].state == CopyState::Finished
    }

    /// A copy marked blocked that no longer is: running again.
    fn unblock(&self, index: usize) {
        let mut state = self.lock();
        let entry = &mut state.copies[index];
        if matches!(entry.state, CopyState::Blocked { .. }) {
            entry.state = CopyState::Running;
        }
    }

    /// Marks copy `index` blocked on `on` by copy `holder` (an index), if
    /// it is still running, and reports the step.
    fn block(&self, index: usize, on: BlockedOn, holder: Option<usize>) {
        let (steps, by) = {
            let mut state = self.lock();
            let by = holder.map(|holder| state.copies[holder].steps.request());
            let entry = &mut state.copies[index];
            if entry.state != CopyState::Running {
                return;
            }
            let copy = holder.and_then(|holder| u8::try_from(holder + 1).ok());
            entry.state = CopyState::Blocked { on, by: copy };
            (entry.steps.clone(), by)
        };
        steps.record(StepKind::Blocked { on, by });
    }

    pub(super) fn view(&self) -> ScheduleView {
        let state = self.lock();
        let copies = state.copies.iter().zip(1..=u8::MAX);
        ScheduleView {
            id: self.id.clone(),
            copies: copies
                .map(|(entry, copy)| ScheduledCopy {
                    copy,
                    request: entry.steps.request(),
                    state: entry.state,
                })
                .collect(),
        }
    }
}

impl ScheduledRequest {
    /// Marks the copy as finished: its work has ended.
    pub fn finish(&self) {
        // A crashed copy never said it let go of its lock: it holds none
        // now. Its transaction, dropped, may still be rolling back on its
        // backend, so that is kept: a copy it blocked names it as holder
        // until PostgreSQL lets go (a transaction that ended normally left
        // its backend at its commit or roll-back gate).
        self.change(|entry| {
            entry.state = CopyState::Finished;
            entry.holds_lock = false;
            entry.waits_for_lock = false;
            entry.statement_backend = None;
        });
    }

    /// Changes this copy's entry and wakes whoever waits on the schedule.
    fn change(&self, how: impl FnOnce(&mut Entry)) {
        how(&mut self.schedule.lock().copies[self.index]);
        self.schedule.changed.notify_waiters();
    }

    /// Waits at the gate before `next` until released, or until the
    /// schedule is closed (deleted, or idle past [`IDLE_LIMIT`]).
    async fn wait_at(&self, next: Gate) {
        let steps = {
            let mut state = self.schedule.lock();
            if state.closed {
                return;
            }
            let entry = &mut state.copies[self.index];
            entry.state = CopyState::AtGate { next };
            entry.released = false;
            entry.steps.clone()
        };
        self.schedule.changed.notify_waiters();
        // Reported once the state says so, so a client that sees the step
        // and then reads the schedule finds the copy at this gate.
        steps.record(StepKind::AtGate { next });
        loop {
            let changed = self.schedule.changed.notified();
            tokio::pin!(changed);
            // Registered before looking, so a release between the look and
            // the wait still wakes it.
            changed.as_mut().enable();
            let idle_at = {
                let mut state = self.schedule.lock();
                if state.closed || state.copies[self.index].released {
                    let entry = &mut state.copies[self.index];
                    entry.released = false;
                    entry.state = CopyState::Running;
                    // Its next statement reports its own connection; a
                    // transaction's connection serves until it ends.
                    entry.statement_backend = None;
                    if matches!(next, Gate::Commit | Gate::RollBack) {
                        entry.transaction_backend = None;
                    }
                    return;
                }
                state.touched + IDLE_LIMIT
            };
            tokio::select! {
                () = &mut changed => {}
                () = tokio::time::sleep_until(idle_at) => {
                    let mut state = self.schedule.lock();
                    if state.touched + IDLE_LIMIT <= Instant::now() {
                        state.closed = true;
                        drop(state);
                        self.schedule.changed.notify_waiters();
                    }
                }
            }
        }
    }
}

impl Drop for ScheduledRequest {
    /// A request whose work was dropped (its client hung up under
    /// `Lab-Cancellation: on-disconnect`) has finished too.
    fn drop(&mut self) {
        self.finish();
    }
}

impl Turnstile for ScheduledRequest {
    fn pass(&self, next: Gate) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(self.wait_at(next))
    }

    fn runs_on(&self, pid: i32, whole_transaction: bool) {
        self.change(|entry| {
            if whole_transaction {
                entry.transaction_backend = Some(pid);
            } else {
                entry.statement_backend = Some(pid);
            }
        });
    }

    fn statement_ended(&self) {
        self.change(|entry| entry.statement_backend = None);
    }

    fn waits_for_server_lock(&self, waiting: bool) {
        self.change(|entry| entry.waits_for_lock = waiting);
    }

    fn holds_server_lock(&self, holding: bool) {
        self.change(|entry| entry.holds_lock = holding);
    }
}
