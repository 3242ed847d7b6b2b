//! Helpers for the end-to-end tests: start a real server on a random port
//! over a real database, talk HTTP to it as a client would, and drive the
//! page in headless Chromium as a learner would.
//!
//! Every test gets its own lab id, so tests can share one PostgreSQL
//! database (and run in parallel) without seeing each other's orders.

pub mod backend;
pub mod browser;
pub mod catalogue;
pub mod client;
pub mod design;
pub mod lab;
pub mod learner;
pub mod model;
pub mod mutants;
pub mod receiving;
pub mod seeds;
pub mod shop;
pub mod stepper;
pub mod steps;
pub mod workshop;

pub use backend::Backend;
pub use client::{Attempt, TestServer, new_key, spawn_lab, spawn_lab_on, spawn_server};
pub use design::{AfterACrash, AfterAnError, CopiesAtOnce, Promises};
pub use learner::{Learner, Role};
pub use steps::StepStream;

/// Lets this test process open as many files as the system allows: a test
/// that holds hundreds of connections open (both of their ends live in the
/// test's process) would pass a soft limit of 1024.
pub use lab_platform::serve::raise_open_files_limit;

/// Writes one test per (design, backend) pair for all five designs, each
/// calling `$name::<Server>(Backend)`: `naive_on_sqlite`, …,
/// `phased_on_postgres`. The server matrix: a test that holds for some
/// designs only asserts each design's [`Promises`] instead of leaving the
/// others out.
#[macro_export]
macro_rules! on_every_design_and_backend {
    ($($name:ident),+ $(,)?) => {$(
        mod $name {
            use $crate::Backend;
            use locked_server::LockedServer;
            use naive_server::NaiveServer;
            use onetrip_server::OneTripServer;
            use phased_server::PhasedServer;
            use safe_server::SafeServer;
            use transactional_server::TransactionalServer;

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn naive_on_sqlite() { super::$name::<NaiveServer>(Backend::Sqlite).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn naive_on_postgres() { super::$name::<NaiveServer>(Backend::Postgres).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn locked_on_sqlite() { super::$name::<LockedServer>(Backend::Sqlite).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn locked_on_postgres() { super::$name::<LockedServer>(Backend::Postgres).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn safe_on_sqlite() { super::$name::<SafeServer>(Backend::Sqlite).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn safe_on_postgres() { super::$name::<SafeServer>(Backend::Postgres).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn transactional_on_sqlite() { super::$name::<TransactionalServer>(Backend::Sqlite).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn transactional_on_postgres() { super::$name::<TransactionalServer>(Backend::Postgres).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn phased_on_sqlite() { super::$name::<PhasedServer>(Backend::Sqlite).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn phased_on_postgres() { super::$name::<PhasedServer>(Backend::Postgres).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn onetrip_on_sqlite() { super::$name::<OneTripServer>(Backend::Sqlite).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn onetrip_on_postgres() { super::$name::<OneTripServer>(Backend::Postgres).await }
        }
    )+};
}

/// Like [`on_every_design_and_backend!`], for the designs that guard the
/// key with a constraint alone (no recovery points): `safe_on_sqlite`,
/// `safe_on_postgres`, `transactional_on_…`, `onetrip_on_…`.
#[macro_export]
macro_rules! on_every_constraint_design_and_backend {
    ($($name:ident),+ $(,)?) => {$(
        mod $name {
            use $crate::Backend;
            use onetrip_server::OneTripServer;
            use safe_server::SafeServer;
            use transactional_server::TransactionalServer;

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn safe_on_sqlite() { super::$name::<SafeServer>(Backend::Sqlite).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn safe_on_postgres() { super::$name::<SafeServer>(Backend::Postgres).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn transactional_on_sqlite() { super::$name::<TransactionalServer>(Backend::Sqlite).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn transactional_on_postgres() { super::$name::<TransactionalServer>(Backend::Postgres).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn onetrip_on_sqlite() { super::$name::<OneTripServer>(Backend::Sqlite).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn onetrip_on_postgres() { super::$name::<OneTripServer>(Backend::Postgres).await }
        }
    )+};
}

/// Writes one test per backend, each calling `$name(Backend)`:
/// `on_sqlite` and `on_postgres`.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),+ $(,)?) => {$(
        mod $name {
            use $crate::Backend;

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn on_sqlite() { super::$name(Backend::Sqlite).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn on_postgres() { super::$name(Backend::Postgres).await }
        }
    )+};
}
