//! What a server's handlers work with: its storage, its tables, where its
//! requests report their steps, the limits it applies to each lab, whose
//! token reads every lab, and its way to the payment provider and the mail sink.

use axum::extract::FromRef;

use crate::explorations::Explorations;
use crate::orders::OrderTables;
use crate::outside::Outside;
use crate::schedules::Schedules;
use crate::steps::StepHub;
use lab_platform::Db;
use lab_platform::access::TeacherToken;
use lab_platform::limits::Room;

/// One server's state, shared by its routes.
#[derive(Debug, Clone)]
pub struct ServerState {
    /// The storage.
    pub db: Db,
    /// The server's order tables.
    pub tables: &'static OrderTables,
    /// Where requests report their steps and pages listen for them.
    pub steps: StepHub,
    /// What each lab may hold of the server at once (shared with the other
    /// servers of the same lab, in the launcher).
    pub room: Room,
    /// Whose token reads every lab (none unless [`Self::with_teacher`]).
    pub teacher: TeacherToken,
    /// The payment provider and the mail sink (none for a server run alone).
    pub outside: Outside,
    /// The open schedules, whose requests stop before each statement.
    pub schedules: Schedules,
    /// The explorations that run every schedule for a lab (shared by the
    /// launcher's designs, which is why each knows its design).
    pub explorations: Explorations,
}

impl ServerState {
    /// The state of a server over `db` with `tables` in `room`, no page listening yet.
    pub fn new(db: Db, tables: &'static OrderTables, room: Room) -> Self {
        Self {
            db,
            tables,
            steps: StepHub::new(),
            room,
            teacher: TeacherToken::none(),
            outside: Outside::none(),
            schedules: Schedules::default(),
            explorations: Explorations::default(),
        }
    }

    /// The same state, charging and e-mailing through `outside`.
    pub fn with_outside(self, outside: Outside) -> Self {
        Self { outside, ..self }
    }

    /// The same state, letting `teacher` read every lab.
    pub fn with_teacher(self, teacher: TeacherToken) -> Self {
        Self { teacher, ..self }
    }
}

impl FromRef<ServerState> for TeacherToken {
    fn from_ref(state: &ServerState) -> Self {
        state.teacher.clone()
    }
}
