//! Which learner's lab a request belongs to: the lab's public name (the
//! `Lab-Id` header) and the secret that opens it (`Lab-Secret`).
//!
//! A lab's id is derived from its secret by a one-way hash, so the server
//! checks a secret without storing anything, and seeing an id on a
//! projector or in a log gives no way into the lab.

use std::fmt;

use sha2::{Digest, Sha256};

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

/// The secret that opens one lab: whoever sends it may place, read and
/// clear that lab's orders. The browser makes one at random and keeps it in
/// the lab's link; a curl user picks any 16 or more letters and digits.
#[derive(Clone, PartialEq, Eq)]
pub struct LabSecret(String);

/// Why a header value is not a usable lab secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the Lab-Secret must be 16 to 128 characters of letters, digits, '-' or '_' (a random one: it is the only key to your lab)"
)]
pub struct InvalidLabSecret;

impl LabSecret {
    /// The shortest secret accepted: 16 characters.
    pub const MIN_LEN: usize = 16;
    const MAX_LEN: usize = 128;
    /// How many hex digits of the hash name a lab: 80 bits, far past guessing.
    const ID_HEX_DIGITS: usize = 20;

    /// The secret as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The id of the lab this secret opens: `lab-` and 20 hex digits of a
    /// SHA-256 of the secret. The same secret always names the same lab.
    pub fn lab_id(&self) -> LabId {
        let digest = Sha256::digest(format!("idempotency-lab lab id\n{}", self.0));
        let hex: String = digest
            .iter()
            .flat_map(|byte| [byte >> 4, byte & 0xf])
            .take(Self::ID_HEX_DIGITS)
            .map(|nibble| char::from_digit(u32::from(nibble), 16).expect("a nibble is a hex digit"))
            .collect();
        LabId(format!("lab-{hex}"))
    }
}

impl TryFrom<&str> for LabSecret {
    type Error = InvalidLabSecret;

    fn try_from(raw: &str) -> Result<Self, Self::Error> {
        let allowed = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        if !(Self::MIN_LEN..=Self::MAX_LEN).contains(&raw.len()) || !raw.chars().all(allowed) {
            return Err(InvalidLabSecret);
        }
        Ok(Self(raw.to_owned()))
    }
}

/// A secret never appears in a log line or a panic message by accident.
impl fmt::Debug for LabSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LabSecret(for {})", self.lab_id())
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

    #[test]
    fn a_secret_always_names_the_same_lab_and_two_secrets_name_two_labs() {
        let secret = LabSecret::try_from("correct-horse-battery").unwrap();
        let again = LabSecret::try_from("correct-horse-battery").unwrap();
        let other = LabSecret::try_from("correct-horse-battery2").unwrap();
        assert_eq!(secret.lab_id(), again.lab_id());
        assert_ne!(secret.lab_id(), other.lab_id());
        let id = secret.lab_id();
        assert!(id.as_str().starts_with("lab-"), "{id}");
        assert_eq!(id.as_str().len(), 24, "{id}");
        assert!(
            LabId::try_from(id.as_str()).is_ok(),
            "a derived id is a valid lab id"
        );
        assert!(
            !id.as_str().contains("horse"),
            "the id does not show the secret"
        );
    }

    #[test]
    fn short_long_and_punctuated_secrets_are_rejected() {
        assert_eq!(LabSecret::try_from("too-short"), Err(InvalidLabSecret));
        assert_eq!(
            LabSecret::try_from("x".repeat(129).as_str()),
            Err(InvalidLabSecret)
        );
        assert_eq!(
            LabSecret::try_from("sixteen chars ok"),
            Err(InvalidLabSecret)
        );
        assert!(LabSecret::try_from("x".repeat(16).as_str()).is_ok());
    }

    #[test]
    fn a_secret_is_not_printed_by_debug() {
        let secret = LabSecret::try_from("do-not-print-me-please").unwrap();
        assert!(!format!("{secret:?}").contains("print-me"));
    }
}
