//! The moves a schedule makes in the model: a release, or a crash and the
//! client's retry.

use super::{At, Copy, DesignModel, ModelCrash, ModelDesign, Move, World};

impl DesignModel {
    /// The moves there are: each waiting copy runs its statement, or, with
    /// crashes and none yet, crashes at its gate.
    pub(super) fn moves(&self, world: &World) -> Vec<Move> {
        let waiting = Self::movable(world);
        let mut moves: Vec<Move> = waiting.iter().map(|&copy| Move::Release(copy)).collect();
        let may_crash = |copy: &u8| match self.crash {
            ModelCrash::Never => false,
            ModelCrash::AnyGate => true,
            ModelCrash::AtTheAnswer => world.copies[usize::from(*copy) - 1].at == At::Answer,
        };
        if !world.crashed {
            moves.extend(
                waiting
                    .iter()
                    .filter(|copy| may_crash(copy))
                    .map(|&copy| Move::Crash(copy)),
            );
        }
        moves
    }

    /// Makes `one` move.
    pub(super) fn make(&self, world: &mut World, one: Move) {
        match one {
            Move::Release(copy) => self.step(world, copy),
            Move::Crash(copy) => self.crash(world, copy),
        }
    }

    /// Copy `number` crashes at its gate: it runs nothing more and its
    /// client is told nothing; its open transaction rolls back, so an
    /// insert of the key that waited for it goes in (with two copies at
    /// most one waits); the locked design's lock goes to the next waiter;
    /// the client retries with the same key, as a new copy at the first gate.
    fn crash(&self, world: &mut World, number: u8) {
        let i = usize::from(number) - 1;
        if world.claiming == Some(i) && self.design == ModelDesign::Phased {
            Self::phase_committed(world);
        } else if world.claiming == Some(i) {
            world.claiming = None;
            if let Some(next) = world.copies.iter().position(|c| c.at == At::ClaimWaits) {
                world.claiming = Some(next);
                world.copies[next].at = At::InsertOrderInTx;
            }
        }
        self.flow_ended(world, i);
        world.copies[i].at = At::Done;
        world.crashed = true;
        let retry = Copy {
            at: self.first_gate(),
            answer: None,
        };
        world.copies.push(retry);
    }
}
