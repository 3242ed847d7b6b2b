//! Running order work to the end even when the client hangs up.

use std::future::Future;

use lab_platform::LabError;

/// Runs `work` in its own task and waits for it.
///
/// hyper drops a handler's future when the client's connection closes, which
/// would stop the work at whatever `.await` it had reached. A real server
/// (the article's Node.js one included) carries on and commits; the spawned
/// task does that, since dropping its `JoinHandle` does not cancel it.
pub async fn finish_even_if_client_leaves<T, W>(work: W) -> Result<T, LabError>
where
    T: Send + 'static,
    W: Future<Output = Result<T, LabError>> + Send + 'static,
{
    tokio::spawn(work)
        .await
        .map_err(|join_error| LabError::WorkerFailed(join_error.to_string()))?
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn work_finishes_after_its_caller_gives_up() {
        let finished = Arc::new(AtomicBool::new(false));
        let flag = finished.clone();
        let caller = finish_even_if_client_leaves(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            flag.store(true, Ordering::SeqCst);
            Ok(())
        });
        // The caller is dropped long before the work is done, as hyper drops
        // a handler whose client disconnected.
        let gave_up = tokio::time::timeout(Duration::from_millis(5), caller).await;
        assert!(gave_up.is_err());
        for _ in 0..100 {
            if finished.load(Ordering::SeqCst) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the work was cancelled together with its caller");
    }

    #[tokio::test]
    async fn a_panicking_worker_becomes_an_error_not_a_crash() {
        let result: Result<(), LabError> =
            finish_even_if_client_leaves(async { panic!("boom") }).await;
        assert!(matches!(result, Err(LabError::WorkerFailed(_))));
    }
}
