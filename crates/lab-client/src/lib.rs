//! What the page knows that is not drawing: how to read an attempt's
//! outcome and how to explain a run in plain words. Plain Rust with no
//! browser dependency, so it is unit-tested natively.

pub mod explain;
pub mod outcome;

pub use explain::{Run, explain, money};
pub use outcome::Outcome;
