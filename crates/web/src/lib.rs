//! The lab's page. Components stay thin: the client's behaviour, the
//! grouping and the explaining are plain Rust in the `lab-client` crate;
//! the HTTP is in [`api`].

mod api;
mod app;
mod fields;
mod lab_id;
mod language;
mod lesson;
mod live_steps;
mod pane;
mod picture;
mod playback;
mod run_axis;
mod runner;
mod state;
mod status;
mod url;
mod words;

pub use app::App;
