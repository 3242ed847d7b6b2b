//! What the results of a run share, provided once by the page that shows
//! them (the lab, or a saved run's viewer) and read by each pane, the
//! playback bar and the diagram options: the purchases, the run's time
//! axis and clock, whether steps arrive live, whether a run is under way,
//! and the playhead.

use lab_client::Purchases;
use leptos::prelude::*;

use crate::playback::Playback;
use crate::run_axis::RunAxis;

/// The results' shared state: one struct of signals, in the page's context.
#[derive(Clone, Copy)]
pub struct Results {
    /// Which orders belong to which purchase.
    pub purchases: StoredValue<Purchases>,
    /// How long the run's attempts span, in ms.
    pub span_ms: Signal<f64>,
    /// Ms since the run started, ticking while it runs.
    pub now_ms: Signal<f64>,
    /// Whether the live step stream is open.
    pub steps_live: Signal<bool>,
    /// Whether a run is under way (the controls wait).
    pub busy: Signal<bool>,
    /// The time axis both panes' diagrams share.
    pub axis: RunAxis,
    /// The playhead both panes follow.
    pub playback: Playback,
}

impl Results {
    /// Makes these the results every component below reads.
    pub fn provide(self) {
        provide_context(self);
    }

    /// The results the page provided.
    pub fn of_page() -> Self {
        expect_context::<Self>()
    }
}
