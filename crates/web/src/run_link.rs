//! The link to the last run, once it is saved for its permalink (see
//! [`crate::runner`]), or why it could not be.

use lab_i18n::i18n::td_string;
use leptos::prelude::*;

use crate::api::ApiError;
use crate::words::say;

/// The link to the last run, once it is saved (or why it was not).
#[component]
pub fn SavedRunLink(saved: RwSignal<Option<Result<String, ApiError>>>) -> impl IntoView {
    move || {
        saved.get().map(|saved| match saved {
            Ok(url) => view! {
                <p class="run-link">
                    <a href=url id="run-link">{say(|l| td_string!(l, run.link).to_owned())}</a>
                </p>
            }
            .into_any(),
            Err(error) => view! {
                <p class="run-link hint">
                    {say(move |l| td_string!(l, run.not_saved, error = error.text(l)))}
                </p>
            }
            .into_any(),
        })
    }
}
