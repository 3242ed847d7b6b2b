//! The `Lab-Id` header value: which learner's lab a request belongs to.

use std::fmt;

/// The name of one learner's lab; orders and keys never cross labs.
///
/// 1–64 characters of `[A-Za-z0-9_-]`, so it is safe in a URL and a log line.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct LabId(String);

/// Why a header value is not a usable lab id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the Lab-Id must be 1 to 64 characters of letters, digits, '-' or '_'")]
pub struct InvalidLabId;

impl LabId {
    /// The lab used when a request names none.
    pub const DEFAULT: &str = "default";

    /// The lab id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for LabId {
    fn default() -> Self {
        Self(Self::DEFAULT.to_owned())
    }
}

impl TryFrom<&str> for LabId {
    type Error = InvalidLabId;

    fn try_from(raw: &str) -> Result<Self, Self::Error> {
        let allowed = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        if raw.is_empty() || raw.len() > 64 || !raw.chars().all(allowed) {
            return Err(InvalidLabId);
        }
        Ok(Self(raw.to_owned()))
    }
}

impl fmt::Display for LabId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_digits_dashes_and_underscores_make_a_lab_id() {
        assert_eq!(LabId::try_from("room-3_A").unwrap().as_str(), "room-3_A");
    }

    #[test]
    fn empty_long_and_punctuated_lab_ids_are_rejected() {
        assert_eq!(LabId::try_from(""), Err(InvalidLabId));
        assert_eq!(LabId::try_from("x".repeat(65).as_str()), Err(InvalidLabId));
        assert_eq!(LabId::try_from("a/b"), Err(InvalidLabId));
        assert_eq!(LabId::try_from("a b"), Err(InvalidLabId));
    }

    #[test]
    fn the_default_lab_is_named_default() {
        assert_eq!(LabId::default().as_str(), "default");
    }
}
