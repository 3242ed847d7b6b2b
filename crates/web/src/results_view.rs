//! A run's results as both pages draw them (the lab and a saved run's
//! viewer): the replay controls, the two panes, and how steps are drawn.

use leptos::prelude::*;

use crate::pane::PaneView;
use crate::playback_bar::{DiagramOptions, PlaybackBar};
use crate::state::Pane;

/// The replay bar, `panes` side by side, and the diagram options; the
/// page provides their shared [`crate::results::Results`].
#[component]
pub fn RunResults(panes: [Pane; 2]) -> impl IntoView {
    let [first, second] = panes;
    view! {
        <PlaybackBar />
        <div class="panes">
            <PaneView pane=first index=0 />
            <PaneView pane=second index=1 />
        </div>
        <DiagramOptions />
    }
}
