//! The lab's page. Components stay thin: the client's behaviour, the
//! grouping and the explaining are plain Rust in the `lab-client` crate;
//! the HTTP is in [`api`].
//!
//! Built twice: as the learner's page, and with the feature `viewer` as
//! the viewer of saved runs and the teacher's view (see [`start`]). The
//! viewer draws with the lab's panes and leaves the rest of the lab unused;
//! it also holds the scheduler page ("You are the scheduler").
#![cfg_attr(feature = "viewer", allow(dead_code))]

mod api;
mod app;
mod challenge_store;
#[cfg(feature = "viewer")]
mod every_order;
mod fields;
mod lab_id;
mod language;
mod lesson;
mod live_steps;
mod pane;
mod picture;
mod playback;
mod playback_bar;
mod receiving;
mod receiving_api;
mod results;
mod results_view;
mod run_axis;
mod run_link;
#[cfg(feature = "viewer")]
mod run_page;
mod runner;
#[cfg(feature = "viewer")]
mod schedule_api;
#[cfg(feature = "viewer")]
mod scheduler_page;
mod state;
mod status;
#[cfg(feature = "viewer")]
mod stepper;
#[cfg(feature = "viewer")]
mod stepper_moves;
#[cfg(feature = "viewer")]
mod teacher;
mod url;
mod words;

pub use app::App;

/// Mounts the page. The learner's page (this crate without features) is
/// the lab; the viewer (feature `viewer`, its own bundle under `/viewer/`)
/// is a run's permalink (`/runs/ID`) or the teacher's view (`/teacher`).
/// The viewer is a bundle of its own so that the learner's page, which
/// every browser in the room loads, does not carry it (10 KB gzipped).
pub fn start() {
    #[cfg(feature = "viewer")]
    {
        use leptos::prelude::*;
        let path = web_sys::window()
            .and_then(|w| w.location().pathname().ok())
            .unwrap_or_default();
        if path == "/scheduler" {
            leptos::mount::mount_to_body(|| {
                language::provide_locale();
                view! { <scheduler_page::SchedulerPage /> }
            });
        } else if path == "/teacher" {
            leptos::mount::mount_to_body(|| {
                language::provide_locale();
                view! { <teacher::TeacherPage /> }
            });
        } else {
            let id = path.trim_start_matches("/runs/").to_owned();
            leptos::mount::mount_to_body(move || {
                language::provide_locale();
                view! { <run_page::RunPage id=id /> }
            });
        }
    }
    #[cfg(not(feature = "viewer"))]
    {
        use wasm_bindgen::JsCast;
        // index.html's <main>, under the heading and introduction it painted
        // while this loaded; a page without it gets the lab in its body.
        let main = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(app::LAB_ELEMENT))
            .and_then(|main| main.dyn_into::<web_sys::HtmlElement>().ok());
        match main {
            Some(main) => leptos::mount::mount_to(main, App).forget(),
            None => leptos::mount::mount_to_body(App),
        }
    }
}
