//! The lab's wire format: what travels between the browser, the CLI and the
//! order servers. Plain data and validation only, so it compiles for
//! wasm as well as for the servers (no sqlx, no tokio).

pub mod exploration;
pub mod headers;
pub mod key;
pub mod lab;
pub mod order;
pub mod outside;
pub mod problem;
pub mod run;
pub mod schedule;
pub mod step;
pub mod text;
pub mod timestamp;
pub mod webhook;
pub mod whole;
pub mod workshop;

pub use exploration::{ExplorationAsk, ExplorationState, ExplorationView, ExploredSchedule};
pub use key::{IdempotencyKey, InvalidKey};
pub use lab::{InvalidLabId, InvalidLabSecret, LabId, LabSecret};
pub use order::{InvalidOrder, NewOrder, Order};
pub use problem::Problem;
pub use schedule::{BlockedOn, CopyState, Gate, ScheduleView, ScheduledCopy};
pub use step::{KeyFound, STEPS_MISSED_EVENT, Step, StepKind, StepsMissed};
pub use timestamp::{InvalidTimestamp, Timestamp};
