//! The lab's page. Components stay thin: the explaining is done by the
//! `lab-client` crate, the HTTP by [`api`].

mod api;
mod app;
mod lab_id;

pub use app::App;
