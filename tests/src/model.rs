//! An independent model of the designs' statements, for checking the
//! explorer's runs on the real servers against it.
//!
//! Written from what each design promises to do (docs/http-api.md, the
//! article), not from the servers' code: an abstract database with a key
//! table, an orders table, transactions whose uncommitted key makes a
//! second insert of that key wait (PostgreSQL's row locks) or that run as
//! one step on SQLite's single writer, and the locked design's lock in
//! memory. Each copy of the order is a small program of gates; a move
//! lets one copy run the statement at its gate, or (with crashes) ends
//! one copy there as a dying server would, after which its client retries
//! with the same key as one more copy. The model is checked with
//! `stateright` (a maintained model checker), and its complete schedules
//! are listed in the explorer's notation (`1 1 2 …`) so that the two can
//! be compared schedule by schedule.

mod checked;
mod listing;
mod moves;
mod phased;
mod reduced;

/// The designs the model knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelDesign {
    /// Look the key up, insert the order, save the answer: no constraint.
    Naive,
    /// The naive statements behind a lock per key in the server's memory.
    Locked,
    /// Claim under UNIQUE, then order, then answer: three statements.
    Safe,
    /// Claim, order and answer in one transaction, the claim under UNIQUE.
    Transactional,
    /// Claim, order and answer in one statement (one transaction on SQLite).
    OneTrip,
    /// Atomic phases: the claim, then the order and its recovery point in
    /// one transaction, the next recovery point, then the answer in one
    /// transaction (see `model/phased.rs`).
    Phased,
    /// A mutant: safe's claim without the UNIQUE constraint.
    SafeWithoutUnique,
    /// A mutant: safe's claim made only after a look-up found nothing.
    SafeCheckThenInsert,
}

/// Where a transaction's uncommitted rows make others wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelDatabase {
    /// One writer: a write transaction runs as one step.
    Sqlite,
    /// Row locks: a second insert of a key an open transaction inserted
    /// waits until that transaction ends.
    Postgres,
}

/// Which crash a schedule may make: one, after which the crashed copy's
/// client retries with the same key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelCrash {
    Never,
    /// Any copy at any gate, as a dying server.
    AnyGate,
    /// Any copy at its answer only: the work done, the answer lost.
    AtTheAnswer,
}

/// What a copy does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum At {
    TakeLock,
    WaitsForLock,
    LookUp,
    InsertOrder,
    SaveAnswer,
    Begin,
    Claim,
    TakeOver,
    ClearExpired,
    LookUpKey,
    CheckKey,
    ClaimWaits,
    InsertOrderInTx,
    SaveAnswerInTx,
    Commit,
    RollBack,
    LookUpAnswer,
    ClaimAndOrder,
    /// The phased design's own statements (`model/phased.rs`).
    Phased(PhasedAt),
    Answer,
    Done,
}

/// Where a phased copy stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PhasedAt {
    ClearExpired,
    Claim,
    TakeOver,
    FindKey,
    /// The phase "order": begin, insert, move the point, commit.
    BeginOrder,
    InsertOrder,
    SaveOrderCreated,
    CommitOrder,
    /// The point `charged`, one statement.
    SaveCharged,
    /// The phase "finished": begin, save the answer, commit.
    BeginFinish,
    SaveAnswer,
    CommitFinish,
}

/// One copy of the order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Copy {
    at: At,
    /// The order its answer will name.
    answer: Option<u8>,
}

/// One move of a schedule, written as the explorer writes it: `1` lets
/// copy 1 run the statement at its gate, `x1` crashes it there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    Release(u8),
    Crash(u8),
}

impl Move {
    /// The copy it moves.
    pub fn copy(self) -> u8 {
        match self {
            Self::Release(copy) | Self::Crash(copy) => copy,
        }
    }

    /// As the explorer writes it.
    pub fn text(self) -> String {
        match self {
            Self::Release(copy) => copy.to_string(),
            Self::Crash(copy) => format!("x{copy}"),
        }
    }
}

/// The abstract database and the copies.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct World {
    copies: Vec<Copy>,
    /// Committed orders, by the copy that made them.
    orders: Vec<u8>,
    /// Committed saved answers, oldest first: the order each names.
    answers: Vec<u8>,
    /// Whether a committed row holds the key (the UNIQUE claim).
    claimed: bool,
    /// The copy whose open transaction has inserted the key.
    claiming: Option<usize>,
    /// The copy holding the locked design's lock, and those waiting, in turn.
    lock: Option<usize>,
    waiting: Vec<usize>,
    /// The answers the copies were given: the order each named.
    told: Vec<(usize, u8)>,
    /// Whether a copy has crashed (one crash per schedule, as the explorer
    /// makes it).
    crashed: bool,
}

impl World {
    /// Whether a design that promises one order kept it here.
    pub fn kept_the_promise(&self) -> bool {
        self.orders.len() <= 1
            && self
                .told
                .iter()
                .all(|(_, order)| self.orders.contains(order))
    }
}

/// A design's copies over the abstract database.
#[derive(Debug, Clone)]
pub struct DesignModel {
    pub design: ModelDesign,
    pub database: ModelDatabase,
    pub copies: u8,
    /// Which crash a schedule may make, once.
    pub crash: ModelCrash,
    /// At most this many preemptions per listed schedule, counted as the
    /// explorer counts them (a switch away from a copy that could move).
    pub preemptions: Option<usize>,
}

impl DesignModel {
    fn first_gate(&self) -> At {
        match self.design {
            ModelDesign::Naive | ModelDesign::Transactional => At::LookUp,
            ModelDesign::Locked => At::TakeLock,
            ModelDesign::OneTrip => At::ClaimAndOrder,
            ModelDesign::Safe | ModelDesign::SafeWithoutUnique => At::Claim,
            ModelDesign::SafeCheckThenInsert => At::CheckKey,
            ModelDesign::Phased => At::Phased(PhasedAt::ClearExpired),
        }
    }

    fn initial(&self) -> World {
        let copy = Copy {
            at: self.first_gate(),
            answer: None,
        };
        World {
            copies: vec![copy; usize::from(self.copies)],
            orders: Vec::new(),
            answers: Vec::new(),
            claimed: false,
            claiming: None,
            lock: None,
            waiting: Vec::new(),
            told: Vec::new(),
            crashed: false,
        }
    }

    /// The copies (numbered from 1) that wait at a gate.
    fn movable(world: &World) -> Vec<u8> {
        let waits = |copy: &Copy| !matches!(copy.at, At::WaitsForLock | At::ClaimWaits | At::Done);
        (1..=u8::MAX)
            .zip(&world.copies)
            .filter(|(_, copy)| waits(copy))
            .map(|(number, _)| number)
            .collect()
    }

    /// Copy `number` runs the statement at its gate.
    fn step(&self, world: &mut World, number: u8) {
        let i = usize::from(number) - 1;
        let copy = world.copies[i];
        let next = match copy.at {
            At::Phased(at) => self.phased_step(world, i, number, at),
            At::TakeLock => match world.lock {
                None => {
                    world.lock = Some(i);
                    At::LookUp
                }
                Some(_) => {
                    world.waiting.push(i);
                    At::WaitsForLock
                }
            },
            At::LookUp | At::LookUpAnswer => match world.answers.first() {
                Some(&order) => {
                    world.copies[i].answer = Some(order);
                    self.flow_ended(world, i);
                    At::Answer
                }
                None if copy.at == At::LookUpAnswer => At::Answer,
                None => match self.design {
                    ModelDesign::Transactional => At::Begin,
                    _ => At::InsertOrder,
                },
            },
            At::InsertOrder => {
                world.orders.push(number);
                world.copies[i].answer = Some(number);
                At::SaveAnswer
            }
            At::SaveAnswer => {
                world.answers.push(number);
                self.flow_ended(world, i);
                At::Answer
            }
            At::Begin if self.database == ModelDatabase::Sqlite => {
                // The whole transaction, on the one writer.
                if world.claimed {
                    At::LookUpAnswer
                } else {
                    self.commit_order(world, i, number);
                    At::Answer
                }
            }
            At::Begin => At::Claim,
            // The mutants: nothing refuses a second claim.
            At::Claim
                if matches!(
                    self.design,
                    ModelDesign::SafeWithoutUnique | ModelDesign::SafeCheckThenInsert
                ) =>
            {
                world.claimed = true;
                At::InsertOrder
            }
            At::CheckKey => match world.answers.first() {
                Some(&order) => {
                    world.copies[i].answer = Some(order);
                    At::Answer
                }
                // Claimed and not answered yet: a 409.
                None if world.claimed => At::Answer,
                None => At::Claim,
            },
            // Safe: the claim is a statement of its own, no transaction.
            At::Claim if self.design == ModelDesign::Safe => {
                if world.claimed {
                    At::TakeOver
                } else {
                    world.claimed = true;
                    At::InsertOrder
                }
            }
            // The claim's lock has not run out, nor the answer's retention:
            // nothing to take over, nothing expired to clear.
            At::TakeOver => At::ClearExpired,
            At::ClearExpired => At::LookUpKey,
            // An answered claim is replayed; one still unanswered is a 409.
            At::LookUpKey => {
                world.copies[i].answer = world.answers.first().copied();
                At::Answer
            }
            At::Claim if world.claimed => At::RollBack,
            At::Claim => match world.claiming {
                Some(_) => At::ClaimWaits,
                None => {
                    world.claiming = Some(i);
                    At::InsertOrderInTx
                }
            },
            At::InsertOrderInTx => At::SaveAnswerInTx,
            At::SaveAnswerInTx => At::Commit,
            At::Commit => {
                world.claiming = None;
                self.commit_order(world, i, number);
                // Inserts of the key that waited for this transaction now
                // meet the committed key.
                for other in &mut world.copies {
                    if other.at == At::ClaimWaits {
                        other.at = At::RollBack;
                    }
                }
                At::Answer
            }
            At::RollBack => At::LookUpAnswer,
            At::ClaimAndOrder if world.claimed => At::LookUpAnswer,
            At::ClaimAndOrder => {
                self.commit_order(world, i, number);
                At::Answer
            }
            At::Answer => {
                if let Some(order) = world.copies[i].answer {
                    world.told.push((i, order));
                }
                At::Done
            }
            At::WaitsForLock | At::ClaimWaits | At::Done => unreachable!("not at a gate"),
        };
        world.copies[i].at = next;
    }

    /// The key, the order and the answer of copy `i`, committed together.
    fn commit_order(&self, world: &mut World, i: usize, number: u8) {
        world.claimed = true;
        world.orders.push(number);
        world.answers.push(number);
        world.copies[i].answer = Some(number);
    }

    /// Copy `i`'s flow is over (its answer is next): the locked design lets
    /// go of its lock, and the next waiter takes it and stops at its look-up.
    fn flow_ended(&self, world: &mut World, i: usize) {
        if world.lock == Some(i) {
            world.lock = None;
            if !world.waiting.is_empty() {
                let next = world.waiting.remove(0);
                world.lock = Some(next);
                world.copies[next].at = At::LookUp;
            }
        }
    }
}
