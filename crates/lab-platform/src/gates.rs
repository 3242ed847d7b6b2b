//! Statement gates: where a scheduled request stops before each statement.
//!
//! The code that runs every statement (`with_pool!`, `with_reader!`,
//! `with_tx!`, [`crate::DbTx`]) calls [`wait_at`] with the statement it is
//! about to run. A request that runs under a schedule carries a
//! [`Turnstile`] in a task-local, and waits there until its schedule lets
//! it through; every other request (and every housekeeping job) finds no
//! turnstile and goes straight on: one thread-local read, no lock, no
//! allocation. The schedule itself (who is released, what the step stream
//! reports) lives with the servers' shared code in `lab-core`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use lab_wire::Gate;

/// What a scheduled request's gates wait on.
pub trait Turnstile: Send + Sync + 'static {
    /// Returns once the request may go on to do `next`.
    fn pass(&self, next: Gate) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;

    /// The request's next statement runs on the PostgreSQL backend `pid`
    /// (with `whole_transaction`, every statement until its transaction
    /// ends): where the schedule looks to tell a statement the database
    /// makes wait from a slow one.
    fn runs_on(&self, _pid: i32, _whole_transaction: bool) {}

    /// The statement [`Self::runs_on`] named has ended and its connection
    /// gone back to the pool, where another request may take it: the
    /// backend names this request no longer.
    fn statement_ended(&self) {}

    /// The request starts (`true`) or stops (`false`) waiting for a lock
    /// in the server's own memory (the locked design's).
    fn waits_for_server_lock(&self, _waiting: bool) {}

    /// The request takes (`true`) or lets go of (`false`) such a lock.
    fn holds_server_lock(&self, _holding: bool) {}
}

tokio::task_local! {
    static TURNSTILE: Arc<dyn Turnstile>;
}

/// Waits, if this request runs under a schedule, until it may do `next`.
pub async fn wait_at(next: Gate) {
    if let Ok(turnstile) = TURNSTILE.try_with(Arc::clone) {
        turnstile.pass(next).await;
    }
}

/// Whether this request runs under a schedule (so its storage reports
/// the backend its statements run on, which costs a round trip).
pub fn is_scheduled() -> bool {
    TURNSTILE.try_with(|_| ()).is_ok()
}

/// Tells a scheduled request's schedule which PostgreSQL backend runs its
/// next statement, or its transaction (see [`Turnstile::runs_on`]).
pub fn runs_on(pid: i32, whole_transaction: bool) {
    let _ = TURNSTILE.try_with(|turnstile| turnstile.runs_on(pid, whole_transaction));
}

/// Tells a scheduled request's schedule that its statement has ended (see
/// [`Turnstile::statement_ended`]).
pub fn statement_ended() {
    let _ = TURNSTILE.try_with(|turnstile| turnstile.statement_ended());
}

/// Tells a scheduled request's schedule that it starts or stops waiting
/// for a lock of the server's own (see [`Turnstile::waits_for_server_lock`]).
pub fn waits_for_server_lock(waiting: bool) {
    let _ = TURNSTILE.try_with(|turnstile| turnstile.waits_for_server_lock(waiting));
}

/// Tells a scheduled request's schedule that it takes or lets go of a lock
/// of the server's own (see [`Turnstile::holds_server_lock`]).
pub fn holds_server_lock(holding: bool) {
    let _ = TURNSTILE.try_with(|turnstile| turnstile.holds_server_lock(holding));
}

/// Like [`wait_at`], for a statement inside a transaction, or its commit
/// or rollback. On SQLite there is no gate there: a write transaction holds
/// the one writer from its first write to its end, so no other request's
/// write can come between its statements (and a learner pausing inside it
/// would stop every lab's writes). Its [`Gate::Begin`] stands for all of it.
pub async fn wait_in_transaction(next: Gate, on_sqlite: bool) {
    if !on_sqlite {
        wait_at(next).await;
    }
}

/// Runs `work` with its statements behind `turnstile`'s gates (tasks it
/// spawns run without: only the request's own statements are scheduled).
pub fn run_scheduled<F: Future>(
    turnstile: Arc<dyn Turnstile>,
    work: F,
) -> impl Future<Output = F::Output> {
    TURNSTILE.scope(turnstile, work)
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// Lets every gate through at once, writing down which it was.
    #[derive(Default)]
    struct Recorder {
        passed: Mutex<Vec<Gate>>,
    }

    impl Turnstile for Recorder {
        fn pass(&self, next: Gate) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
            self.passed.lock().unwrap().push(next);
            Box::pin(async {})
        }
    }

    #[tokio::test]
    async fn a_request_without_a_schedule_passes_every_gate_untouched() {
        assert!(!is_scheduled());
        runs_on(7, false);
        wait_at(Gate::LookUp).await;
        wait_in_transaction(Gate::Commit, false).await;
    }

    #[tokio::test]
    async fn a_scheduled_request_meets_each_gate_in_order() {
        let recorder = Arc::new(Recorder::default());
        run_scheduled(recorder.clone(), async {
            assert!(is_scheduled());
            wait_at(Gate::LookUp).await;
            wait_at(Gate::InsertOrder).await;
            wait_in_transaction(Gate::Commit, false).await;
        })
        .await;
        let passed = recorder.passed.lock().unwrap().clone();
        assert_eq!(passed, [Gate::LookUp, Gate::InsertOrder, Gate::Commit]);
    }

    #[tokio::test]
    async fn on_sqlite_a_whole_transaction_is_one_gate() {
        let recorder = Arc::new(Recorder::default());
        run_scheduled(recorder.clone(), async {
            wait_at(Gate::Begin).await;
            wait_in_transaction(Gate::InsertOrder, true).await;
            wait_in_transaction(Gate::Commit, true).await;
            wait_in_transaction(Gate::SaveAnswer, false).await;
        })
        .await;
        let passed = recorder.passed.lock().unwrap().clone();
        assert_eq!(passed, [Gate::Begin, Gate::SaveAnswer]);
    }
}
