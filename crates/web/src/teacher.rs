//! The teacher's view of the room (`/teacher?token=…`): every lab active
//! on the server, refreshed every few seconds, each with links to its
//! latest run, plain and for the projector. The server serves this page
//! only with the token; the page sends the same token for the room.

use gloo_timers::callback::Interval;
use lab_client::room::room_table;
use lab_i18n::i18n::td_string;
use lab_wire::workshop::LabActivity;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::{self, ApiError};
use crate::language::LanguageField;
use crate::url::search_params;
use crate::words::{say, use_locale};

/// How often the room is read again.
const REFRESH_MS: u32 = 3000;

/// The teacher's page.
#[component]
pub fn TeacherPage() -> impl IntoView {
    let locale = use_locale();
    let token = search_params()
        .and_then(|params| params.get("token"))
        .unwrap_or_default();
    let labs = RwSignal::new(None::<Result<Vec<LabActivity>, ApiError>>);
    let read = move |token: String| {
        spawn_local(async move { labs.set(Some(api::room(&token).await)) });
    };
    read(token.clone());
    // The view is the whole page: it refreshes for as long as the page is open.
    Interval::new(REFRESH_MS, move || read(token.clone())).forget();
    let table = move || {
        labs.with(|labs| match labs {
            None => String::new(),
            Some(Ok(labs)) => room_table(labs, locale.get()),
            Some(Err(_)) => String::new(),
        })
    };
    let refused = move || labs.with(|labs| matches!(labs, Some(Err(_))));
    let count = move || {
        labs.with(|labs| {
            labs.as_ref()
                .and_then(|l| l.as_ref().ok())
                .map_or(0, Vec::len)
        })
    };
    view! {
        <main class="teacher">
            <header class="intro">
                <h1>{say(|l| td_string!(l, teacher.title).to_owned())}</h1>
                <p>{say(|l| td_string!(l, teacher.intro).to_owned())}</p>
                <div class="display-options"><LanguageField /></div>
            </header>
            <p class="error" role="alert" class:hidden=move || !refused()>
                {say(|l| td_string!(l, teacher.refused).to_owned())}
            </p>
            <div class="room-frame" aria-live="polite" data-labs=count inner_html=table></div>
        </main>
    }
}
