//! Scheduled requests: a request sent with `Lab-Schedule` stops at a gate
//! before each database statement (and before a call to the payment
//! provider, and before it answers) until it is released, so a learner or
//! the explorer decides the order in which racing copies run their
//! statements instead of the timing deciding it.

use serde::{Deserialize, Serialize};

/// What a scheduled request will do next, when it stops at a gate: the
/// statement it is about to run, the call it is about to make, or its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Gate {
    /// Take the key's lock in the server's own memory (the locked design).
    TakeLock,
    /// Read the key's row: is there an answer (or a claim) for it?
    LookUp,
    /// Insert the key: the claim the UNIQUE constraint decides.
    Claim,
    /// Take over a claim whose request never answered and whose lock ran out.
    TakeOver,
    /// Delete a key whose retention ran out, so it can be claimed anew.
    ClearExpired,
    /// Check, inside the order's transaction, that the claim is still this request's.
    CheckClaim,
    /// Insert the order.
    InsertOrder,
    /// One statement that claims the key and writes the order and the answer.
    ClaimAndOrder,
    /// Look for the order a crashed request wrote under its claim.
    FindOrder,
    /// Save the answer on the key, for retries to replay.
    SaveAnswer,
    /// Move a phased request's key to its next recovery point.
    SavePhase,
    /// Put a queued e-mail in the outbox.
    QueueEmail,
    /// Let go of the claim after a failure.
    ReleaseClaim,
    /// Open a database transaction (on SQLite: the whole transaction, which
    /// holds the one writer from its first write to its commit, so nothing
    /// another request writes can come between its statements).
    Begin,
    /// Commit the transaction.
    Commit,
    /// Roll the transaction back.
    RollBack,
    /// Call the payment provider to charge the card.
    Charge,
    /// Send the confirmation e-mail.
    SendEmail,
    /// Send the HTTP answer.
    Answer,
}

impl Gate {
    /// Every gate, in the order of [`Gate`]'s variants.
    pub const ALL: [Gate; 19] = [
        Gate::TakeLock,
        Gate::LookUp,
        Gate::Claim,
        Gate::TakeOver,
        Gate::ClearExpired,
        Gate::CheckClaim,
        Gate::InsertOrder,
        Gate::ClaimAndOrder,
        Gate::FindOrder,
        Gate::SaveAnswer,
        Gate::SavePhase,
        Gate::QueueEmail,
        Gate::ReleaseClaim,
        Gate::Begin,
        Gate::Commit,
        Gate::RollBack,
        Gate::Charge,
        Gate::SendEmail,
        Gate::Answer,
    ];
}

/// Where one copy of a schedule stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum CopyState {
    /// Stopped at a gate, waiting to be released.
    AtGate {
        /// What it will do once released.
        next: Gate,
    },
    /// Released: running its statement.
    Running,
    /// Released, but its statement cannot finish until another request
    /// lets go of what it holds.
    Blocked {
        /// What it waits for.
        on: BlockedOn,
        /// The copy of this schedule that holds it, if it is one.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 255))]
        by: Option<u8>,
    },
    /// Its work has ended (answered, crashed or hung up).
    Finished,
}

/// What a blocked request waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum BlockedOn {
    /// The database: on PostgreSQL, a row another open transaction has
    /// written (a second insert of the same key waits to see whether the
    /// first commits). Read from the database's own lock table.
    Database,
    /// A lock in the server's own memory (the locked design's per-key lock).
    ServerLock,
}

/// One request that joined a schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ScheduledCopy {
    /// Its number in the schedule, in order of arrival (1, 2, …): what a
    /// release names.
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 255))]
    pub copy: u8,
    /// The number its steps carry on the server's step stream.
    #[cfg_attr(
        feature = "openapi",
        schema(minimum = 0, maximum = 9_007_199_254_740_991_u64)
    )]
    pub request: u64,
    /// Where it stands.
    #[serde(flatten)]
    pub state: CopyState,
}

/// A schedule and the copies that joined it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ScheduleView {
    /// Its id: the value of `Lab-Schedule` on the copies' `POST /orders`.
    pub id: String,
    /// Its copies, in order of arrival.
    pub copies: Vec<ScheduledCopy>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_travel_as_kebab_case_names_and_every_one_is_listed_once() {
        let names: Vec<String> = Gate::ALL
            .iter()
            .map(|gate| {
                serde_json::to_value(gate)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(names[1], "look-up");
        assert_eq!(names[6], "insert-order");
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
    }

    #[test]
    fn a_copy_reads_back_with_its_state_flat() {
        let copy = ScheduledCopy {
            copy: 2,
            request: 9,
            state: CopyState::AtGate { next: Gate::Claim },
        };
        let json = serde_json::to_value(&copy).unwrap();
        assert_eq!(json["state"], "at-gate");
        assert_eq!(json["next"], "claim");
        assert_eq!(serde_json::from_value::<ScheduledCopy>(json).unwrap(), copy);
    }

    #[test]
    fn a_blocked_copy_names_what_it_waits_for_and_the_copy_that_holds_it() {
        let copy = ScheduledCopy {
            copy: 2,
            request: 9,
            state: CopyState::Blocked {
                on: BlockedOn::Database,
                by: Some(1),
            },
        };
        let json = serde_json::to_value(&copy).unwrap();
        assert_eq!(json["state"], "blocked");
        assert_eq!(json["on"], "database");
        assert_eq!(json["by"], 1);
        assert_eq!(serde_json::from_value::<ScheduledCopy>(json).unwrap(), copy);
    }
}
