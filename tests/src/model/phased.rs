//! The phased design's statements in the model: claim the key; then, in
//! one transaction, the order and the recovery point `order-created`;
//! then the point `charged` (no provider here: the lab's copies send no
//! side effects); then, in one transaction, the answer and the point
//! `finished`. A copy whose claim meets the key tries to take its lock
//! over (the lock has not run out), then reads the key: a finished key is
//! replayed, any other is a 409.
//!
//! On PostgreSQL one statement waits for another copy's transaction: a
//! phase that has moved the key's recovery point holds a new version of
//! the key row until it commits, and a second claim of the key (an INSERT
//! into its UNIQUE index) waits to see whether that version commits
//! before it meets the committed key. The take-over's and the clean-up's
//! conditions are false on the committed row (its lock has not run out,
//! it is not finished), so PostgreSQL skips the row without waiting. (The
//! model said no statement waits, at first; the real server said the
//! claim did: `docs/explorer.md`.)

use super::{At, DesignModel, ModelDatabase, PhasedAt, World};

impl DesignModel {
    /// Phased copy `i` (numbered `number`) runs the statement at `at`.
    pub(super) fn phased_step(&self, world: &mut World, i: usize, number: u8, at: PhasedAt) -> At {
        let sqlite = self.database == ModelDatabase::Sqlite;
        let next = match at {
            PhasedAt::ClearExpired => PhasedAt::Claim,
            // The key's row is being moved by an open phase: wait for it.
            PhasedAt::Claim if world.claiming.is_some() => return At::ClaimWaits,
            PhasedAt::Claim if world.claimed => PhasedAt::TakeOver,
            PhasedAt::Claim => {
                world.claimed = true;
                PhasedAt::BeginOrder
            }
            PhasedAt::TakeOver => PhasedAt::FindKey,
            PhasedAt::FindKey => {
                // Finished: its answer is replayed; any other point is a 409.
                world.copies[i].answer = world.answers.first().copied();
                return At::Answer;
            }
            // On SQLite's one writer a transaction is one step.
            PhasedAt::BeginOrder if sqlite => {
                world.orders.push(number);
                world.copies[i].answer = Some(number);
                PhasedAt::SaveCharged
            }
            PhasedAt::BeginOrder => PhasedAt::InsertOrder,
            PhasedAt::InsertOrder => PhasedAt::SaveOrderCreated,
            PhasedAt::SaveOrderCreated => {
                world.claiming = Some(i);
                PhasedAt::CommitOrder
            }
            PhasedAt::CommitOrder => {
                Self::phase_committed(world);
                world.orders.push(number);
                world.copies[i].answer = Some(number);
                PhasedAt::SaveCharged
            }
            PhasedAt::SaveCharged => PhasedAt::BeginFinish,
            PhasedAt::BeginFinish if sqlite => {
                world.answers.push(number);
                return At::Answer;
            }
            PhasedAt::BeginFinish => PhasedAt::SaveAnswer,
            PhasedAt::SaveAnswer => {
                world.claiming = Some(i);
                PhasedAt::CommitFinish
            }
            PhasedAt::CommitFinish => {
                Self::phase_committed(world);
                world.answers.push(number);
                return At::Answer;
            }
        };
        At::Phased(next)
    }

    /// The open phase let go of the key's row (committed, or rolled back
    /// by a crash): a claim that waited for it meets the committed key.
    pub(super) fn phase_committed(world: &mut World) {
        world.claiming = None;
        for copy in &mut world.copies {
            if copy.at == At::ClaimWaits {
                copy.at = At::Phased(PhasedAt::TakeOver);
            }
        }
    }
}
