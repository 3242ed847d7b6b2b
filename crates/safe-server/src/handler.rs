//! The safe flow, step by step: claim, then act. Read it beside
//! `naive-server/src/handler.rs`: the same steps, but the key is written
//! first and the database decides who was first.

use axum::extract::State;
use axum::response::Response;
use lab_core::{Db, LabError, OrderRequest, ServerState, run_order_flow};
use lab_wire::{IdempotencyKey, LabId};

use crate::store::{self, Claim, ClaimTerms, KeyState};

/// `POST /orders`: create an order unless another request already claimed this key.
pub async fn create_order(
    State(state): State<ServerState>,
    request: OrderRequest,
) -> Result<Response, LabError> {
    run_order_flow(state, request, place_order).await
}

/// The flow itself, run to the end by [`create_order`] even if the client leaves.
pub async fn place_order(db: Db, request: OrderRequest) -> Result<Response, LabError> {
    let fingerprint = request.fingerprint();
    let OrderRequest {
        lab,
        key,
        order,
        controls,
    } = request;

    // Step 1: claim the key. Of any number of requests racing here, the
    // UNIQUE constraint lets exactly one insert succeed; every other one gets
    // a unique violation. No `if` of ours decides this, so no timing can fool it.
    let terms = ClaimTerms {
        fingerprint: &fingerprint,
        expires_at: controls.key_expires_at(),
        locked_until: controls.locked_until(),
    };
    let claim = store::claim_key(&db, &lab, &key, &terms).await?;
    if claim == Claim::AlreadyClaimed {
        return answer_duplicate(&db, &lab, &key, &fingerprint).await;
    }

    // The same race window as the naive server's: harmless here, since
    // every latecomer already lost the claim.
    controls.pause().await;

    // Step 2: do the work and store its answer on the key, in one
    // transaction. If it fails, release the claim so that a retry is not
    // stuck behind a key that will never get an answer.
    let crash = controls.crashes_after_create();
    let stored = match store::create_order_and_save_response(&db, &lab, &key, &order, crash).await {
        Ok(stored) => stored,
        // A crashed process cleans nothing up: the claim stays until its lock runs out.
        Err(LabError::SimulatedCrash) => return Err(LabError::SimulatedCrash),
        Err(error) => {
            if let Err(release_error) = store::release_key(&db, &lab, &key).await {
                tracing::error!(%release_error, key = %key, "could not release the key of a failed order");
            }
            return Err(error);
        }
    };
    Ok(stored.first_response())
}

/// The answer for a request whose key someone else claimed.
async fn answer_duplicate(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    fingerprint: &str,
) -> Result<Response, LabError> {
    let state = store::key_state(db, lab, key).await?;
    // A key names one request: replaying its answer to a different request
    // would tell the client that its different order went through.
    if state.claimed_by_another_request(fingerprint) {
        return Err(LabError::KeyReused);
    }
    match state {
        KeyState::Answered { stored, .. } => Ok(stored.replay()),
        // Still running, or released a moment ago after a failure: either
        // way the client should retry shortly with the same key.
        KeyState::InFlight { .. } | KeyState::Absent => Err(LabError::KeyInFlight),
    }
}
