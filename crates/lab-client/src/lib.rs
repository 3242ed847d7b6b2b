//! What the page knows that is not drawing: how the client behaves (copies,
//! timeouts, retries, keys), how attempts and orders are recorded and
//! grouped, and how a run is explained in plain words. Plain Rust with no
//! browser dependency, so all of it is unit-tested natively.

pub mod design;
pub mod diagram;
pub mod display;
pub mod form;
pub mod grouping;
pub mod lesson;
pub mod outcome;
pub mod playback;
pub mod policy;
pub mod presets;
pub mod receiving;
pub mod record;
pub mod room;
pub mod scheduler;
pub mod sequence;
pub mod sorting;
pub mod timeline;
pub mod verdict;

pub use design::{DEFAULT_PANES, Design, DesignText};
pub use display::{Num, Text, clock_time, key_label, money, parse_money, short_key};
pub use form::{ClientForm, FieldGroup, FieldKind, FormField, fields_of};
pub use grouping::{OrderGroup, Purchases, group_orders};
pub use lab_i18n::Locale;
pub use outcome::{Outcome, OutcomeText};
pub use policy::{AttemptPlan, ClientPolicy, run_copy};
pub use presets::{PRESETS, Preset, preset};
pub use sequence::{Sequence, every_request_ended};
pub use timeline::{AttemptRecord, AttemptText};
pub use verdict::{RunFacts, verdict};
