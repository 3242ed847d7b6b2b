//! The safe flow, as the article builds it: claim, act, answer, each its
//! own statement. Read it beside `naive-server/src/handler.rs` (the same
//! steps, but the key is written first and the database decides who was
//! first) and `transactional-server/src/handler.rs` (the same claim, but
//! all three steps commit together).

use axum::response::Response;
use lab_core::side_effects::charge_and_email_in_request;
use lab_core::{Db, LabError, OrderRequest, OrderServer, ServerStorage};
use lab_core::{Outside, Shop, Steps, StoredResponse, WorkPoint};
use lab_wire::{IdempotencyKey, KeyFound, LabId, Order, StepKind};

use crate::store::{self, Claim, ClaimTerms, KeyState};

/// The safe server: the article's fix. Claims the key in a UNIQUE column
/// first, then creates the order, then saves the answer, three statements.
pub struct SafeServer;

impl OrderServer for SafeServer {
    const NAME: &'static str = "safe";
    const STORAGE: &'static ServerStorage = &store::STORAGE;

    /// The flow of `POST /orders`, run to the end even if the client leaves.
    async fn place_order(request: OrderRequest, shop: Shop) -> Result<Response, LabError> {
        let fingerprint = request.fingerprint();
        let (lab, key, controls) = (&request.lab, &request.key, &request.controls);
        let Shop { db, steps, outside } = shop;

        // Step 1: claim the key. Of any number of requests racing here, the
        // UNIQUE constraint lets exactly one insert succeed; every other one gets
        // a unique violation. No `if` of ours decides this, so no timing can fool it.
        let token = uuid::Uuid::new_v4().simple().to_string();
        let terms = ClaimTerms::of(&fingerprint, controls, &token);
        match store::claim_key(&db, lab, key, &terms).await? {
            Claim::AlreadyClaimed => {
                steps.record(StepKind::KeyConflict);
                return answer_duplicate(&db, lab, key, &fingerprint, &steps).await;
            }
            Claim::Won => steps.record(StepKind::KeyClaimed),
            Claim::TookOver { claimed_at } => {
                steps.record(StepKind::ClaimTakenOver);
                // The request that claimed the key died without answering, but
                // it may have written its order first (the three steps are three
                // statements). Finish its work instead of doing it twice.
                if let Some(stored) = store::recover_order(&db, lab, key, claimed_at).await? {
                    steps.record(StepKind::OrderRecovered);
                    steps.record(StepKind::ResponseSaved);
                    return Ok(stored.replay());
                }
            }
        }

        // The same race window as the naive server's: harmless here, since
        // every latecomer already lost the claim.
        controls.slow_part(&steps).await;

        // Step 2: do the work (see `do_the_work`). If it fails and we live
        // to notice, let the claim go: a retry takes it over at once and
        // finds the order if we wrote it, instead of waiting out the lock.
        // A crashed process cleans nothing up: its claim stays unanswered,
        // and retries get 409 until its lock runs out.
        let fence = controls.fencing.then_some(token.as_str());
        let created = match do_the_work(&request, &db, &steps, &outside, fence).await {
            Ok(created) => created,
            Err(error) => {
                let noticed = !matches!(error, LabError::SimulatedCrash | LabError::ClaimLost);
                if noticed && store::let_claim_go(&db, lab, key, &token).await {
                    steps.record(StepKind::KeyReleased);
                }
                return Err(error);
            }
        };

        // Step 3: save the answer on the key, for retries to replay.
        let stored = StoredResponse::created(&created);
        store::save_answer(&db, lab, key, &stored).await?;
        steps.record(StepKind::ResponseSaved);
        Ok(stored.first_response())
    }
}

/// Step 2: writes the order (with `fence`, only while the claim is still
/// ours: a lock can run out while its request is at work, and a retry take
/// the claim over), then, with side effects, charges and e-mails in the
/// request. A failure after the order is written leaves the order, which
/// a takeover recovers (uncharged, if the charge had not been made).
async fn do_the_work(
    request: &OrderRequest,
    db: &Db,
    steps: &Steps,
    outside: &Outside,
    fence: Option<&str>,
) -> Result<Order, LabError> {
    let (lab, key, controls) = (&request.lab, &request.key, &request.controls);
    controls.fails_at(WorkPoint::BeforeCreate)?;
    let Some(created) = store::insert_order(db, lab, key, &request.order, fence).await? else {
        steps.record(StepKind::FencedOut);
        return Err(LabError::ClaimLost);
    };
    steps.record(StepKind::OrderInserted);
    controls.fails_at(WorkPoint::AfterCreate)?;
    let server = SafeServer::NAME;
    charge_and_email_in_request(outside, server, lab, &created, controls, steps).await?;
    Ok(created)
}

/// The answer for a request whose key someone else claimed.
async fn answer_duplicate(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    fingerprint: &str,
    steps: &Steps,
) -> Result<Response, LabError> {
    let state = store::key_state(db, lab, key).await?;
    steps.record(StepKind::KeyLookedUp {
        found: match state {
            KeyState::Absent => KeyFound::Nothing,
            KeyState::InFlight { .. } => KeyFound::InProgress,
            KeyState::Answered { .. } => KeyFound::Answer,
        },
    });
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
