//! The `Idempotency-Key` header value, validated on construction.

use std::fmt;

/// The longest key accepted, in bytes (= characters, since keys are ASCII).
pub const MAX_KEY_LEN: usize = 255;

/// A client-generated key naming one logical operation.
///
/// 1–255 visible ASCII characters without spaces. The IETF draft sends the key
/// as a quoted string (`"abc"`); the quotes are not part of the key, so
/// `"abc"` and `abc` are the same key.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct IdempotencyKey(String);

/// Why a header value is not a usable idempotency key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidKey {
    /// The header was present but empty (or only `""`).
    #[error("the Idempotency-Key header is empty")]
    Empty,
    /// Longer than [`MAX_KEY_LEN`].
    #[error("the Idempotency-Key is {0} characters long; at most 255 are allowed")]
    TooLong(usize),
    /// Contains a space, a control character or a non-ASCII character.
    #[error(
        "the Idempotency-Key may only contain visible ASCII characters without spaces (found {0:?})"
    )]
    BadCharacter(char),
}

impl IdempotencyKey {
    /// The key as sent, without the optional surrounding quotes.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The first eight characters, for timelines and log lines.
    pub fn short(&self) -> &str {
        let end = self.0.len().min(8);
        &self.0[..end]
    }
}

impl TryFrom<&str> for IdempotencyKey {
    type Error = InvalidKey;

    fn try_from(raw: &str) -> Result<Self, Self::Error> {
        let unquoted = raw
            .strip_prefix('"')
            .and_then(|rest| rest.strip_suffix('"'))
            .unwrap_or(raw);
        if unquoted.is_empty() {
            return Err(InvalidKey::Empty);
        }
        if let Some(bad) = unquoted.chars().find(|c| !c.is_ascii_graphic()) {
            return Err(InvalidKey::BadCharacter(bad));
        }
        if unquoted.len() > MAX_KEY_LEN {
            return Err(InvalidKey::TooLong(unquoted.len()));
        }
        Ok(Self(unquoted.to_owned()))
    }
}

impl TryFrom<String> for IdempotencyKey {
    type Error = InvalidKey;

    fn try_from(raw: String) -> Result<Self, Self::Error> {
        Self::try_from(raw.as_str())
    }
}

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uuid_is_a_valid_key() {
        let key = IdempotencyKey::try_from("3f2a9c1e-0b7d-4c55-9a0e-5d1f7e2b8c44").unwrap();
        assert_eq!(key.short(), "3f2a9c1e");
    }

    #[test]
    fn quoted_and_bare_forms_are_the_same_key() {
        let quoted = IdempotencyKey::try_from("\"abc\"").unwrap();
        let bare = IdempotencyKey::try_from("abc").unwrap();
        assert_eq!(quoted, bare);
        assert_eq!(quoted.as_str(), "abc");
    }

    #[test]
    fn empty_and_empty_quoted_keys_are_rejected() {
        assert_eq!(IdempotencyKey::try_from(""), Err(InvalidKey::Empty));
        assert_eq!(IdempotencyKey::try_from("\"\""), Err(InvalidKey::Empty));
    }

    #[test]
    fn a_key_of_255_characters_is_accepted_and_256_is_rejected() {
        assert!(IdempotencyKey::try_from("k".repeat(255)).is_ok());
        assert_eq!(
            IdempotencyKey::try_from("k".repeat(256)),
            Err(InvalidKey::TooLong(256))
        );
    }

    #[test]
    fn spaces_and_non_ascii_characters_are_rejected() {
        assert_eq!(
            IdempotencyKey::try_from("two words"),
            Err(InvalidKey::BadCharacter(' '))
        );
        assert_eq!(
            IdempotencyKey::try_from("clé"),
            Err(InvalidKey::BadCharacter('é'))
        );
    }

    #[test]
    fn a_lone_quote_is_kept_as_part_of_the_key() {
        let key = IdempotencyKey::try_from("\"abc").unwrap();
        assert_eq!(key.as_str(), "\"abc");
    }
}
