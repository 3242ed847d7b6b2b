//! The one-trip flow. Read it beside `transactional-server/src/handler.rs`:
//! the same UNIQUE claim and the same promise (the claim, the order and the
//! answer are kept together or not at all), with the three writes made by
//! one statement instead of a transaction held open across several. Nothing
//! is looked up first: the write itself finds out whether the key is taken,
//! so a new request costs one round trip, and only a duplicate a second.

use axum::response::Response;
use lab_core::orders::unsaved_order;
use lab_core::{LabError, OrderRequest, OrderServer, ServerStorage};
use lab_core::{Shop, StoredResponse, WorkPoint};
use lab_wire::StepKind;

use crate::store::{self, ClaimTerms, Written};

/// The one-trip server: claims the key, creates the order and saves the
/// answer with one statement.
pub struct OneTripServer;

impl OrderServer for OneTripServer {
    const NAME: &'static str = "onetrip";
    const STORAGE: &'static ServerStorage = &store::STORAGE;

    /// The flow of `POST /orders`, run to the end even if the client leaves.
    async fn place_order(request: OrderRequest, shop: Shop) -> Result<Response, LabError> {
        let Shop { db, steps, .. } = shop;
        let (lab, key, controls) = (&request.lab, &request.key, &request.controls);
        // A charge or an e-mail cannot be part of a database statement: a
        // design that needs them must survive a crash between them and its
        // write (see the phased server). This one keeps to the database.
        if controls.side_effects {
            return Err(LabError::NoCallsOutside(Self::NAME));
        }
        let fingerprint = request.fingerprint();
        controls.slow_part(&steps).await;
        controls.fails_at(WorkPoint::BeforeCreate)?;

        // The order and its answer are made here, before anything is
        // written, so that the one statement can store both with the key.
        let order = unsaved_order(key, &request.order);
        let stored = StoredResponse::created(&order);
        let terms = ClaimTerms {
            fingerprint: &fingerprint,
            expires_at: controls.key_expires_at(),
            orders_per_lab: db.orders_per_lab(),
        };
        match store::write_all(&db, lab, key, &terms, &order, &stored).await? {
            Written::All => steps.record(StepKind::ClaimedAndOrdered),
            // Another request holds the key (a racing copy waited for its
            // statement to commit): replay its answer.
            Written::KeyTaken => {
                steps.record(StepKind::KeyConflict);
                let found = store::find_answer(&db, lab, key).await?;
                steps.record_lookup(found.is_some());
                return match found {
                    Some((claimed_by, stored)) => stored.replay_to(&claimed_by, &fingerprint),
                    // It expired in the instant between: the retry claims it.
                    None => Err(LabError::KeyInFlight),
                };
            }
            // A full lab still replays a key it answered before.
            Written::LabFull => {
                return match store::find_answer(&db, lab, key).await? {
                    Some((claimed_by, stored)) => stored.replay_to(&claimed_by, &fingerprint),
                    None => Err(LabError::OrdersLimit(db.orders_per_lab())),
                };
            }
        }
        // A failure from here on comes after everything was stored: there
        // is nothing half-done, and the retry replays this very answer.
        controls.fails_at(WorkPoint::AfterCreate)?;
        Ok(stored.first_response())
    }
}
