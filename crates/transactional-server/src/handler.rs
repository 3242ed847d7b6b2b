//! The transactional flow, step by step: claim, act and answer as one
//! transaction. Read it beside `safe-server/src/handler.rs`: the same
//! UNIQUE claim, but nothing is visible to anyone until all of it commits.

use axum::response::Response;
use lab_core::side_effects::charge_and_email_in_request;
use lab_core::{Db, LabError, OrderRequest, OrderServer, ServerStorage};
use lab_core::{Shop, Steps, StoredResponse, WorkPoint};
use lab_wire::{IdempotencyKey, LabId, StepKind};

use crate::store::{self, Claim};

/// The transactional server: claims the key in a UNIQUE column, creates the
/// order and saves the answer in one transaction.
pub struct TransactionalServer;

impl OrderServer for TransactionalServer {
    const NAME: &'static str = "transactional";
    const STORAGE: &'static ServerStorage = &store::STORAGE;

    /// The flow of `POST /orders`, run to the end even if the client leaves.
    async fn place_order(request: OrderRequest, shop: Shop) -> Result<Response, LabError> {
        let Shop { db, steps, outside } = shop;
        let (lab, key) = (&request.lab, &request.key);
        let fingerprint = request.fingerprint();

        // A quick look first, so a retry of a finished request is answered
        // without opening a transaction. It only ever finds committed answers;
        // it decides nothing about requests still running.
        let found = store::find_answer(&db, lab, key).await?;
        steps.record_lookup(found.is_some());
        if let Some((claimed_by, stored)) = found {
            return stored.replay_to(&claimed_by, &fingerprint);
        }

        // Where the slow part runs is a choice about locks. On PostgreSQL a
        // transaction holding a new key blocks only a duplicate of that key, so
        // the slow part runs inside it and a duplicate waits for the answer. On
        // SQLite any open write transaction holds the one writer of the whole
        // file, every learner's lab included: there the slow part runs first,
        // so the transaction lasts milliseconds (racing duplicates then each
        // wait, and the constraint still lets one order through).
        let controls = &request.controls;
        let slow_part_in_transaction = db.locks_only_written_rows();
        if !slow_part_in_transaction {
            controls.slow_part(&steps).await;
        }

        // Step 1: claim the key, inside the transaction. The UNIQUE constraint
        // refuses a second claim, and PostgreSQL makes a racing insert of the
        // same key wait until this transaction ends, to see whether it committed.
        let mut tx = db.begin_for(lab).await?;
        steps.record(StepKind::TransactionBegun);
        let terms = store::ClaimTerms {
            fingerprint: &fingerprint,
            expires_at: controls.key_expires_at(),
        };
        if store::claim_key(&mut tx, lab, key, &terms).await? == Claim::AlreadyClaimed {
            steps.record(StepKind::KeyConflict);
            roll_back(tx, &steps).await;
            return answer_duplicate(&db, lab, key, &fingerprint).await;
        }
        steps.record(StepKind::KeyClaimed);
        if slow_part_in_transaction {
            controls.slow_part(&steps).await;
        }

        // Step 2: do the work, in the same transaction. A crash or an error
        // before the commit drops the transaction: the database throws away
        // the claim and the order together, and the retry finds nothing in
        // its way.
        if let Err(failure) = controls.fails_at(WorkPoint::BeforeCreate) {
            return Err(give_up(tx, failure, &steps).await);
        }
        let created = store::STORAGE
            .order_tables
            .insert_order_in(&mut tx, db.orders_per_lab(), lab, key, &request.order)
            .await?;
        steps.record(StepKind::OrderInserted);
        if let Err(failure) = controls.fails_at(WorkPoint::AfterCreate) {
            return Err(give_up(tx, failure, &steps).await);
        }
        // With side effects: charge and e-mail inside the transaction. The
        // provider and the mail sink are not in it: if the transaction
        // rolls back now (a crash, a provider timeout), the order and the
        // claim vanish, the charge and the e-mail stay, and the retry,
        // finding nothing, charges and e-mails again.
        if let Err(error) =
            charge_and_email_in_request(&outside, Self::NAME, lab, &created, controls, &steps).await
        {
            return Err(give_up(tx, error, &steps).await);
        }

        // Step 3: save the answer on the key, and commit all three at once.
        let stored = StoredResponse::created(&created);
        store::save_answer_in(&mut tx, lab, key, &stored).await?;
        steps.record(StepKind::ResponseSaved);
        tx.commit().await?;
        steps.record(StepKind::Committed);
        Ok(stored.first_response())
    }
}

/// Ends the transaction of a request whose work failed and passes the
/// failure on: rolled back, or, for a crash, simply dropped (a dead process
/// says nothing; the database rolls back when the connection goes).
async fn give_up(tx: lab_core::DbTx, failure: LabError, steps: &Steps) -> LabError {
    if !matches!(failure, LabError::SimulatedCrash) {
        roll_back(tx, steps).await;
    }
    failure
}

async fn roll_back(tx: lab_core::DbTx, steps: &Steps) {
    if let Err(error) = tx.rollback().await {
        tracing::warn!(%error, "rolling back a refused claim failed; the connection discards it");
    }
    steps.record(StepKind::RolledBack);
}

/// The answer for a request whose key a committed request holds.
async fn answer_duplicate(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    fingerprint: &str,
) -> Result<Response, LabError> {
    match store::find_answer(db, lab, key).await? {
        Some((claimed_by, stored)) => stored.replay_to(&claimed_by, fingerprint),
        // Only a committed claim refuses ours, and a committed claim has its
        // answer; should it have expired or been reset in between, the
        // client may simply retry.
        None => Err(LabError::KeyInFlight),
    }
}
