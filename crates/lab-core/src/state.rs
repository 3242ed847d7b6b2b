//! What a server's handlers work with: its storage, its tables and where
//! its requests report their steps.

use crate::Db;
use crate::orders::OrderTables;
use crate::steps::StepHub;

/// One server's state, shared by its routes.
#[derive(Debug, Clone)]
pub struct ServerState {
    /// The storage.
    pub db: Db,
    /// The server's order tables.
    pub tables: &'static OrderTables,
    /// Where requests report their steps and pages listen for them.
    pub steps: StepHub,
}

impl ServerState {
    /// The state of a server over `db` with `tables`, no page listening yet.
    pub fn new(db: Db, tables: &'static OrderTables) -> Self {
        Self {
            db,
            tables,
            steps: StepHub::new(),
        }
    }
}
