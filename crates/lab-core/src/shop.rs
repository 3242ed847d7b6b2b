//! What a design's flow works with besides the request: its storage, the
//! recorder of the steps a learner watches, and its line to the payment
//! provider and the mail sink.

use lab_platform::Db;

use crate::outside::Outside;
use crate::steps::Steps;

/// An order server at work on one request: [`crate::OrderServer::place_order`]
/// gets the request and this.
#[derive(Debug, Clone)]
pub struct Shop {
    /// Where its keys and orders are.
    pub db: Db,
    /// The request's steps, for the step stream.
    pub steps: Steps,
    /// The provider and the mail sink, or none.
    pub outside: Outside,
}

impl Shop {
    /// A shop over `db` that records no steps and has no way out: the
    /// benchmark's baseline, which measures the flow alone.
    pub fn quiet(db: Db) -> Self {
        Self {
            db,
            steps: Steps::off(),
            outside: Outside::none(),
        }
    }
}
