//! What one request got back, and what an answer carries that its replay
//! should carry too.

use std::time::Duration;

/// What one request got back.
#[derive(Debug, Clone)]
pub enum Answer {
    /// A response.
    Response {
        /// Its status.
        status: u16,
        /// Whether it said `Idempotent-Replayed: true`.
        replayed: bool,
        /// The created resource's id (or the whole body if it has no id field).
        resource: Option<String>,
        /// How long its `Retry-After` header asks the client to wait, if it has one.
        retry_after: Option<Duration>,
        /// What a replay must carry again: its body and headers.
        carried: Carried,
    },
    /// No response: the connection failed or timed out.
    Failed(String),
}

impl Answer {
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Response { status, .. } => Some(*status),
            Self::Failed(_) => None,
        }
    }

    pub fn is_success(&self) -> bool {
        self.status()
            .is_some_and(|status| (200..300).contains(&status))
    }

    pub fn resource(&self) -> Option<&str> {
        match self {
            Self::Response { resource, .. } if self.is_success() => resource.as_deref(),
            _ => None,
        }
    }

    /// `201`, `201 (replayed)`, `409`, or `no response (…)`.
    pub fn describe(&self) -> String {
        match self {
            Self::Response {
                status,
                replayed: true,
                ..
            } => format!("{status} (replayed)"),
            Self::Response { status, .. } => status.to_string(),
            Self::Failed(error) => format!("no response ({error})"),
        }
    }
}

/// What an answer carries that its replay should carry too.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Carried {
    /// The body, as sent.
    pub body: String,
    /// Its `Location` header, if any.
    pub location: Option<String>,
    /// Its `Content-Type` header, if any.
    pub content_type: Option<String>,
    /// How long it says its key is kept (`Idempotency-TTL`), if it says;
    /// not something a replay must repeat.
    pub retention: Option<String>,
}

impl Answer {
    /// What this answer carries (nothing for a failed connection).
    pub fn carried(&self) -> Option<&Carried> {
        match self {
            Self::Response { carried, .. } => Some(carried),
            Self::Failed(_) => None,
        }
    }

    /// Whether it said `Idempotent-Replayed: true`.
    pub fn is_marked_replayed(&self) -> bool {
        matches!(self, Self::Response { replayed: true, .. })
    }
}
