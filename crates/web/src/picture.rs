//! A pane's sequence diagram as a picture: the SVG that
//! [`Diagram::to_svg`] draws, with the events after the
//! playhead hidden. It is hidden from screen readers: the table beside it
//! says the same, and is what they read.

use lab_client::diagram::Diagram;
use lab_client::diagram::svg::Drawing;
use leptos::prelude::*;

use crate::words::use_locale;

/// The diagram of one pane, redrawn as the playhead moves.
#[component]
pub fn Picture(
    /// The pane's id, so the arrowheads' ids are the page's only ones.
    pane: &'static str,
    #[prop(into)] diagram: Signal<Diagram>,
    /// Milliseconds on the run's axis, or `None` to show everything.
    #[prop(into)]
    playhead: Signal<Option<f64>>,
) -> impl IntoView {
    let page_locale = use_locale();
    let markup = move || {
        let at = playhead.get();
        diagram.with(|d| {
            d.to_svg(Drawing {
                id: pane,
                shown: at.map_or(d.events.len(), |ms| d.shown_at(ms)),
                playhead_y: at.map(|ms| d.playhead_y(ms)),
                locale: page_locale.get(),
            })
        })
    };
    view! { <div class="picture-frame" inner_html=markup></div> }
}
