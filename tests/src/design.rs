//! What each design promises, written down once so that the tests over
//! every design can assert it, where a design keeps its promise and where
//! it fails. A design added later does not compile into the matrix until
//! it says what it promises here.

use lab_core::OrderServer;
use locked_server::LockedServer;
use naive_server::NaiveServer;
use onetrip_server::OneTripServer;
use phased_server::PhasedServer;
use safe_server::SafeServer;
use transactional_server::TransactionalServer;

/// What copies of one request, sent at once to one server process, leave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopiesAtOnce {
    /// Every copy looks the key up before any saves it, and orders: the
    /// check-then-insert race keeps several orders for one purchase.
    Duplicates,
    /// One order, and the other copies wait for it and replay it.
    OneOrderOthersWait,
    /// One order, and a copy that comes while it is being made is told so
    /// (409, to retry); one that comes after replays it.
    OneOrderOthersRetry,
}

/// What a crash between the order and its saved answer leaves, and what
/// the client's retries get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterACrash {
    /// The order stays and nothing remembers it: the retry orders again,
    /// two orders for one purchase.
    OrdersAgain,
    /// Nothing stays (the one transaction never committed): the retry
    /// orders, once.
    KeepsNothing,
    /// The order stays and its unanswered claim holds the key: retries get
    /// 409 until the claim's lock runs out, then one finishes that same order.
    HoldsTheKeyThenFinishes,
    /// There is no moment between the order and its answer (one statement
    /// wrote both): the crash comes after, and the retry replays the order.
    ReplaysTheOrder,
}

/// What an error of the server's own code just after the order is
/// written (`Lab-Fault: error-after-create`, answered 500; the process
/// lives on) leaves, and what the client's retry gets at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterAnError {
    /// The order stays and nothing remembers it: the retry orders again.
    OrdersAgain,
    /// The transaction rolled back: the retry orders, once.
    KeepsNothing,
    /// The failed request let its claim go: the retry takes it over at
    /// once and answers with that same order.
    FinishesThatOrder,
    /// The order and its answer were stored together before the error:
    /// the retry replays them.
    ReplaysThatOrder,
}

/// A design's promises.
pub trait Promises: OrderServer {
    /// Copies of one request at once.
    const COPIES_AT_ONCE: CopiesAtOnce;
    /// A crash between the order and its answer.
    const AFTER_A_CRASH: AfterACrash;
    /// An error the server survives, between the order and its answer.
    const AFTER_AN_ERROR: AfterAnError;
}

impl Promises for NaiveServer {
    const COPIES_AT_ONCE: CopiesAtOnce = CopiesAtOnce::Duplicates;
    const AFTER_A_CRASH: AfterACrash = AfterACrash::OrdersAgain;
    const AFTER_AN_ERROR: AfterAnError = AfterAnError::OrdersAgain;
}

/// One process's lock does close the race, within that process (across
/// processes it does not: `replicas.rs`); a crash frees the lock and the
/// naive flow behind it has nothing to remember the order by.
impl Promises for LockedServer {
    const COPIES_AT_ONCE: CopiesAtOnce = CopiesAtOnce::OneOrderOthersWait;
    const AFTER_A_CRASH: AfterACrash = AfterACrash::OrdersAgain;
    const AFTER_AN_ERROR: AfterAnError = AfterAnError::OrdersAgain;
}

impl Promises for SafeServer {
    const COPIES_AT_ONCE: CopiesAtOnce = CopiesAtOnce::OneOrderOthersRetry;
    const AFTER_A_CRASH: AfterACrash = AfterACrash::HoldsTheKeyThenFinishes;
    const AFTER_AN_ERROR: AfterAnError = AfterAnError::FinishesThatOrder;
}

/// A latecomer cannot see an uncommitted claim, so it is never told 409:
/// the database makes it wait, then it replays the answer.
impl Promises for TransactionalServer {
    const COPIES_AT_ONCE: CopiesAtOnce = CopiesAtOnce::OneOrderOthersWait;
    const AFTER_A_CRASH: AfterACrash = AfterACrash::KeepsNothing;
    const AFTER_AN_ERROR: AfterAnError = AfterAnError::KeepsNothing;
}

impl Promises for PhasedServer {
    const COPIES_AT_ONCE: CopiesAtOnce = CopiesAtOnce::OneOrderOthersRetry;
    const AFTER_A_CRASH: AfterACrash = AfterACrash::HoldsTheKeyThenFinishes;
    const AFTER_AN_ERROR: AfterAnError = AfterAnError::FinishesThatOrder;
}

/// A racing copy's statement waits for the first one's to commit (on
/// SQLite, for the one writer), finds the key taken and replays the answer;
/// and since one statement writes the order and the answer, a failure can
/// only come before both or after both.
impl Promises for OneTripServer {
    const COPIES_AT_ONCE: CopiesAtOnce = CopiesAtOnce::OneOrderOthersWait;
    const AFTER_A_CRASH: AfterACrash = AfterACrash::ReplaysTheOrder;
    const AFTER_AN_ERROR: AfterAnError = AfterAnError::ReplaysThatOrder;
}
