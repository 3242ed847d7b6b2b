//! The last run on one time axis: where it starts, each pane's diagram laid
//! out on it, and every moment a server did something, which is what
//! playback steps through.

use lab_client::diagram::{self, Diagram, Scale};
use leptos::prelude::*;

use crate::state::Pane;
use crate::words::use_locale;

#[derive(Clone, Copy)]
pub struct RunAxis {
    /// The earliest step of either pane, in server microseconds.
    pub origin_us: Signal<Option<i64>>,
    pub diagrams: [Signal<Diagram>; 2],
    pub moments: Signal<Vec<f64>>,
}

impl RunAxis {
    /// The axis of `panes`' last run; long waits drawn to scale while `to_scale` holds.
    pub fn of(panes: [Pane; 2], to_scale: RwSignal<bool>) -> Self {
        let page_locale = use_locale();
        let origin = Memo::new(move |_| {
            panes[0].steps.with(|first| {
                panes[1]
                    .steps
                    .with(|second| diagram::origin_us([first.as_slice(), second.as_slice()]))
            })
        });
        let laid_out = move |pane: Pane| {
            Memo::new(move |_| {
                let scale = if to_scale.get() {
                    Scale::ToScale
                } else {
                    Scale::Folded
                };
                let locale = page_locale.get();
                origin.get().map_or_else(Diagram::default, |origin| {
                    pane.steps
                        .with(|steps| Diagram::of(steps, origin, scale, locale))
                })
            })
        };
        let diagrams = [laid_out(panes[0]), laid_out(panes[1])];
        // The server's events only: the client's own moments (an answer
        // received) change nothing in the pictures, so stepping over them
        // would look like a step that did nothing.
        let moments = Memo::new(move |_| {
            diagrams[0].with(|first| diagrams[1].with(|second| diagram::moments([first, second])))
        });
        Self {
            origin_us: origin.into(),
            diagrams: diagrams.map(Into::into),
            moments: moments.into(),
        }
    }
}
