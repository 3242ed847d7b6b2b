//! The atomic-phases flow. Read it beside `transactional-server/src/handler.rs`:
//! there, one transaction holds everything, and a charge made inside it
//! cannot be rolled back with it. Here each phase commits on its own before
//! the next foreign call, the key remembers the last phase that committed
//! (its recovery point), and a retry resumes from there:
//!
//! 1. claim the key (or resume it, or replay its answer);
//! 2. phase "order": store the order → `order-created`;
//! 3. the foreign call: charge at the provider under a key derived from the
//!    idempotency key, so however often this runs, the provider charges
//!    once and answers the same charge → `charged`;
//! 4. phase "finished": stage the e-mail in the outbox and save the answer,
//!    in one transaction; the enqueuer sends the e-mail.

use axum::response::Response;
use lab_core::outside::Outside;
use lab_core::side_effects::{Charge, charge_recorded};
use lab_core::{Db, LabError, OrderRequest, OrderServer, ServerStorage};
use lab_core::{Shop, Steps, StoredResponse, WorkPoint};
use lab_wire::{IdempotencyKey, KeyFound, LabId, Order, StepKind};

use crate::store::{self, Claim, ClaimTerms, RecoveryPoint};

/// The atomic-phases server: Brandur Leach's design for Stripe-like keys.
pub struct PhasedServer;

impl OrderServer for PhasedServer {
    const NAME: &'static str = "phased";
    const STORAGE: &'static ServerStorage = &store::STORAGE;

    /// The flow of `POST /orders`, run to the end even if the client leaves.
    async fn place_order(request: OrderRequest, shop: Shop) -> Result<Response, LabError> {
        let (lab, key) = (request.lab.clone(), request.key.clone());
        let Shop { db, steps, outside } = shop;
        let fingerprint = request.fingerprint();
        let terms = ClaimTerms {
            fingerprint: &fingerprint,
            expires_at: request.controls.key_expires_at(),
            locked_until: request.controls.locked_until(),
        };
        let point = match store::claim(&db, &lab, &key, &terms).await? {
            Claim::New => {
                steps.record(StepKind::KeyClaimed);
                RecoveryPoint::Started
            }
            Claim::Resume(point) => {
                steps.record(StepKind::ClaimTakenOver);
                point
            }
            Claim::Answered {
                fingerprint: claimed_by,
                stored,
            } => {
                steps.record_lookup(true);
                if claimed_by != fingerprint {
                    return Err(LabError::KeyReused);
                }
                return Ok(stored.replay());
            }
            Claim::Held {
                fingerprint: claimed_by,
            } => {
                steps.record(StepKind::KeyLookedUp {
                    found: KeyFound::InProgress,
                });
                return Err(if claimed_by == fingerprint {
                    LabError::KeyInFlight
                } else {
                    LabError::KeyReused
                });
            }
        };
        let result = run_phases(&db, request, point, &steps, &outside).await;
        if let Err(error) = &result {
            // A failure we noticed (not a crash, not a lost key) lets the
            // lock go, so the retry resumes at once from the last phase
            // that committed instead of waiting for the lock to run out.
            if !matches!(error, LabError::SimulatedCrash | LabError::KeyInFlight) {
                match store::unlock(&db, &lab, &key).await {
                    Ok(()) => steps.record(StepKind::KeyReleased),
                    Err(unlock_error) => {
                        tracing::error!(%unlock_error, key = %key, "could not let go of a failed request's key")
                    }
                }
            }
        }
        result
    }
}

/// The phases from `point` on.
async fn run_phases(
    db: &Db,
    request: OrderRequest,
    mut point: RecoveryPoint,
    steps: &Steps,
    outside: &Outside,
) -> Result<Response, LabError> {
    let OrderRequest {
        lab,
        key,
        order,
        controls,
    } = request;
    let created = if point == RecoveryPoint::Started {
        controls.slow_part(steps).await;
        controls.fails_at(WorkPoint::BeforeCreate)?;
        let created = store::create_order(db, &lab, &key, &order).await?;
        steps.record(StepKind::OrderInserted);
        steps.record(StepKind::Committed);
        controls.fails_at(WorkPoint::AfterCreate)?;
        point = RecoveryPoint::OrderCreated;
        created
    } else {
        let found = stored_order(db, &lab, &key).await?;
        steps.record(StepKind::OrderRecovered);
        found
    };
    if point == RecoveryPoint::OrderCreated {
        let charge_id = if controls.side_effects {
            Some(charge(outside, &lab, &key, &created, &controls, steps).await?)
        } else {
            None
        };
        if !store::record_charge(db, &lab, &key, charge_id.as_deref()).await? {
            return Err(LabError::KeyInFlight);
        }
        steps.record(StepKind::Committed);
    }
    let stored = StoredResponse::created(&created);
    store::finish(db, &lab, &key, &created, &stored, controls.side_effects).await?;
    if controls.side_effects {
        steps.record(StepKind::EmailQueued);
        outside.outbox_filled();
    }
    steps.record(StepKind::ResponseSaved);
    steps.record(StepKind::Committed);
    Ok(stored.first_response())
}

/// The foreign call: a charge under a key of its own, derived from the
/// idempotency key, so a resumed request gets the provider's first charge
/// back instead of a second.
async fn charge(
    outside: &Outside,
    lab: &LabId,
    key: &IdempotencyKey,
    order: &Order,
    controls: &lab_core::DemoControls,
    steps: &Steps,
) -> Result<String, LabError> {
    let provider_key = format!("{}/charge", key.as_str());
    let charge = Charge {
        merchant: PhasedServer::NAME,
        lab,
        key: &provider_key,
        order,
    };
    let made = charge_recorded(outside, &charge, controls, steps).await?;
    if controls.crashes_after_charge() {
        // Charged, not yet recorded: the retry will charge again, under
        // the same provider key, and get this charge back.
        return Err(LabError::SimulatedCrash);
    }
    Ok(made.charge.id)
}

/// The order a crashed or failed request stored before it stopped.
async fn stored_order(db: &Db, lab: &LabId, key: &IdempotencyKey) -> Result<Order, LabError> {
    store::stored_order(db, lab, key).await?.ok_or_else(|| {
        // The lab's orders were cleared while its keys were not: the key
        // points at nothing, and a fresh key is the way on.
        LabError::InvalidRecord(
            "this key's order is gone (the lab was cleared); send the order with a new key".into(),
        )
    })
}
