//! The naive flow behind a lock per key, in this process's memory.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;

use axum::Router;
use axum::response::Response;
use lab_core::routes::order_routes;
use lab_core::{LabError, OrderRequest, OrderServer, ServerState, ServerStorage, Shop, gates};
use lab_wire::{Gate, LabId};
use naive_server::handler::check_then_act;

use crate::store::KEYS;

/// The naive flow behind a per-key lock in process memory.
pub struct LockedServer;

impl OrderServer for LockedServer {
    const NAME: &'static str = "locked";
    const STORAGE: &'static ServerStorage = KEYS.storage;

    /// The flow behind the locks of this whole process (what the benchmark
    /// calls directly). A server's routes have locks of their own: see [`Self::routes`].
    async fn place_order(request: OrderRequest, shop: Shop) -> Result<Response, LabError> {
        static PROCESS: std::sync::OnceLock<KeyLocks> = std::sync::OnceLock::new();
        let locks = PROCESS.get_or_init(KeyLocks::default).clone();
        locked_flow(locks, request, shop).await
    }

    /// The routes of one server process: each call makes one, with locks
    /// (memory) of its own, as a replica of the lab (`--replicas`) has.
    fn routes(state: ServerState) -> Router {
        let locks = KeyLocks::default();
        order_routes(state, move |request, shop| {
            locked_flow(locks, request, shop)
        })
    }
}

/// Takes the key's lock, then runs the naive flow while holding it.
async fn locked_flow(
    locks: KeyLocks,
    request: OrderRequest,
    shop: Shop,
) -> Result<Response, LabError> {
    let lock = locks.of(&request.lab, request.key.as_str());
    // A second request with this key waits here, in this process only.
    gates::wait_at(Gate::TakeLock).await;
    // Polled once first: a request that must wait is then in the lock's
    // queue (first come, first served) before it says it waits, so a
    // schedule that sees it waiting knows it is ahead of the next one.
    let held = {
        let mut taking = std::pin::pin!(lock.lock());
        match futures::poll!(taking.as_mut()) {
            Poll::Ready(held) => held,
            Poll::Pending => {
                gates::waits_for_server_lock(true);
                let held = taking.await;
                gates::waits_for_server_lock(false);
                held
            }
        }
    };
    gates::holds_server_lock(true);
    let answer = check_then_act(&KEYS, request, shop).await;
    drop(held);
    gates::holds_server_lock(false);
    locks.forget_if_unused(lock);
    answer
}

/// A key's lock: held by the request whose flow is running.
type KeyLock = Arc<tokio::sync::Mutex<()>>;

/// One lock per (lab, key), kept while some request holds or waits for it.
#[derive(Clone, Default)]
pub struct KeyLocks {
    locks: Arc<Mutex<HashMap<(LabId, String), KeyLock>>>,
}

impl KeyLocks {
    /// The lock of `key` in `lab`, made if none is held.
    fn of(&self, lab: &LabId, key: &str) -> KeyLock {
        let mut locks = self.locks.lock().unwrap_or_else(PoisonError::into_inner);
        locks
            .entry((lab.clone(), key.to_owned()))
            .or_default()
            .clone()
    }

    /// Drops the map's entry once nobody else holds or waits for `lock`, so
    /// the map only ever holds keys in use.
    fn forget_if_unused(&self, lock: KeyLock) {
        let mut locks = self.locks.lock().unwrap_or_else(PoisonError::into_inner);
        // Two references: the map's and `lock`. More means another request has it.
        if Arc::strong_count(&lock) == 2 {
            locks.retain(|_, kept| !Arc::ptr_eq(kept, &lock));
        }
    }

    /// How many keys have a lock now.
    pub fn len(&self) -> usize {
        self.locks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Whether no key has a lock now.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_keys_lock_makes_a_second_request_wait_and_is_forgotten_after() {
        let locks = KeyLocks::default();
        let lab = LabId::default();
        let first = locks.of(&lab, "k");
        let held = first.lock().await;
        let second = locks.of(&lab, "k");
        assert!(Arc::ptr_eq(&first, &second), "one lock per key");
        assert!(second.try_lock().is_err(), "the second request waits");
        assert!(!Arc::ptr_eq(&first, &locks.of(&lab, "other")));
        drop(held);
        locks.forget_if_unused(second);
        assert_eq!(
            locks.len(),
            2,
            "still referenced by `first`, and `other`'s entry"
        );
        drop(first);
    }
}
