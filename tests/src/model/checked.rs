//! The model as `stateright` checks it: every state it can reach, and the
//! properties that must hold in each.

use stateright::{Model, Property};

use super::{At, DesignModel, ModelDesign, Move, World};

impl Model for DesignModel {
    type State = World;
    type Action = Move;

    fn init_states(&self) -> Vec<World> {
        vec![self.initial()]
    }

    fn actions(&self, world: &World, actions: &mut Vec<Move>) {
        actions.extend(self.moves(world));
    }

    fn next_state(&self, world: &World, one: Move) -> Option<World> {
        let mut next = world.clone();
        self.make(&mut next, one);
        Some(next)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always(
                "at most one order, and every answer names it",
                |_, world: &World| world.kept_the_promise(),
            ),
            Property::always(
                "no copy waits once every other has ended",
                |model: &DesignModel, world: &World| {
                    !DesignModel::movable(world).is_empty()
                        || world.copies.iter().all(|copy| copy.at == At::Done)
                        || model.copies == 0
                },
            ),
            Property::always(
                "no key left claimed without its answer once every copy has ended",
                |model: &DesignModel, world: &World| {
                    let ended = world.copies.iter().all(|copy| copy.at == At::Done);
                    // Safe's claim outlives a crash by design, until its
                    // lock runs out (a time the model does not keep).
                    let claim_may_wait_for_its_lock = world.crashed
                        && matches!(
                            model.design,
                            ModelDesign::Safe
                                | ModelDesign::SafeWithoutUnique
                                | ModelDesign::SafeCheckThenInsert
                                | ModelDesign::Phased
                        );
                    !ended
                        || (world.claiming.is_none()
                            && (!world.claimed
                                || !world.answers.is_empty()
                                || claim_may_wait_for_its_lock))
                },
            ),
        ]
    }
}
