//! Webhook signatures in the Standard Webhooks style (the scheme of
//! standardwebhooks.com, which Svix and others use): the sender signs
//! `{webhook-id}.{webhook-timestamp}.{body}` with HMAC-SHA256 under a
//! secret it shares with the receiver, and sends `webhook-id`,
//! `webhook-timestamp` (Unix seconds) and `webhook-signature` (`v1,` and
//! the signature in base64; several, space-separated, while a secret is
//! being rotated). The receiver recomputes it and refuses the delivery
//! unless one matches and the timestamp is recent, so nobody without the
//! secret can make a shop ship, and a captured delivery cannot be replayed
//! days later. The payment provider signs its `charge.succeeded` events
//! with it, the lab's receivers check them before they ship anything, and
//! `probe --webhook` signs what it sends to a receiver with it. It is a
//! crate of its own so that the probe can sign without the services.
//!
//! Written here rather than taken from `standardwebhooks` (the scheme's
//! reference crate): its one release (1.0.1, 2024) brings `time` and a
//! second major version of `base64`, and reads the clock itself, where
//! these functions take `now` so that every tolerance case is tested.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// How far a delivery's timestamp may be from the receiver's clock, either
/// way, in seconds (the scheme's recommended five minutes).
pub const TOLERANCE_SECS: i64 = 5 * 60;

/// The prefix of a secret written out (`whsec_` and the key in base64).
const SECRET_PREFIX: &str = "whsec_";

/// The key a sender and its receiver share.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookKey(Vec<u8>);

impl std::fmt::Debug for WebhookKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebhookKey(…)")
    }
}

/// Why a delivery's signature does not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// A secret that is not `whsec_` and base64.
    #[error("a webhook secret is whsec_ followed by its key in base64")]
    MalformedSecret,
    /// `webhook-timestamp` is not a whole number of seconds.
    #[error("webhook-timestamp is not a number of seconds")]
    MalformedTimestamp,
    /// The timestamp is further than [`TOLERANCE_SECS`] from now.
    #[error(
        "webhook-timestamp is {0} s from the receiver's clock, more than the {TOLERANCE_SECS} s allowed"
    )]
    OutOfTolerance(i64),
    /// No `v1` signature in `webhook-signature` matches the delivery.
    #[error("no signature in webhook-signature matches this delivery")]
    NoMatch,
}

impl WebhookKey {
    /// A key of these bytes.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        Self(bytes.into())
    }

    /// The key of a secret written out as `whsec_…`.
    pub fn from_secret(secret: &str) -> Result<Self, SignatureError> {
        let encoded = secret
            .strip_prefix(SECRET_PREFIX)
            .ok_or(SignatureError::MalformedSecret)?;
        match BASE64.decode(encoded) {
            Ok(bytes) if !bytes.is_empty() => Ok(Self(bytes)),
            _ => Err(SignatureError::MalformedSecret),
        }
    }

    /// The secret written out, as a receiver is given it.
    pub fn to_secret(&self) -> String {
        format!("{SECRET_PREFIX}{}", BASE64.encode(&self.0))
    }

    /// Another key, derived from this one for `context` (HMAC-SHA256 of
    /// it): the same context gives the same key, another context another.
    pub fn derive(&self, context: &[u8]) -> Self {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(context);
        Self(mac.finalize().into_bytes().to_vec())
    }

    fn mac(&self, id: &str, timestamp: &str, body: &[u8]) -> Hmac<Sha256> {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.as_bytes());
        mac.update(b".");
        mac.update(body);
        mac
    }

    /// The `webhook-signature` value for delivery `id` sent at `timestamp`
    /// (Unix seconds) with `body`.
    pub fn sign(&self, id: &str, timestamp: i64, body: &[u8]) -> String {
        let signature = self.mac(id, &timestamp.to_string(), body).finalize();
        format!("v1,{}", BASE64.encode(signature.into_bytes()))
    }

    /// Checks a delivery's headers against its body, at `now` (Unix
    /// seconds): the timestamp within [`TOLERANCE_SECS`], and one of the
    /// `v1` signatures made with this key (compared in constant time).
    pub fn verify(
        &self,
        id: &str,
        timestamp: &str,
        signatures: &str,
        body: &[u8],
        now: i64,
    ) -> Result<(), SignatureError> {
        let sent: i64 = timestamp
            .trim()
            .parse()
            .map_err(|_| SignatureError::MalformedTimestamp)?;
        let drift = now.saturating_sub(sent);
        if drift.unsigned_abs() > TOLERANCE_SECS.unsigned_abs() {
            return Err(SignatureError::OutOfTolerance(drift));
        }
        let matches = signatures
            .split_whitespace()
            .filter_map(|entry| entry.strip_prefix("v1,"))
            .filter_map(|encoded| BASE64.decode(encoded).ok())
            .any(|given| {
                self.mac(id, timestamp.trim(), body)
                    .verify_slice(&given)
                    .is_ok()
            });
        if matches {
            Ok(())
        } else {
            Err(SignatureError::NoMatch)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the Standard Webhooks specification.
    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const AT: i64 = 1614265330;
    const BODY: &[u8] = br#"{"test": 2432232314}"#;
    const SIGNATURE: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    #[test]
    fn the_specifications_example_signs_and_verifies() {
        let key = WebhookKey::from_secret(SECRET).unwrap();
        assert_eq!(key.sign(ID, AT, BODY), SIGNATURE);
        assert_eq!(key.to_secret(), SECRET);
        assert_eq!(
            key.verify(ID, "1614265330", SIGNATURE, BODY, AT + 10),
            Ok(())
        );
    }

    #[test]
    fn one_matching_signature_among_several_is_enough() {
        let key = WebhookKey::from_secret(SECRET).unwrap();
        let rotated = format!("v1,bm90IHRoaXMgb25l v2,whatever {SIGNATURE}");
        assert_eq!(key.verify(ID, "1614265330", &rotated, BODY, AT), Ok(()));
    }

    #[test]
    fn a_changed_body_id_or_timestamp_or_another_key_does_not_verify() {
        let key = WebhookKey::from_secret(SECRET).unwrap();
        let other = WebhookKey::new(b"another shop's key".to_vec());
        let at = "1614265330";
        let changed = br#"{"test": 2432232315}"#;
        assert_eq!(
            key.verify(ID, at, SIGNATURE, changed, AT),
            Err(SignatureError::NoMatch)
        );
        assert_eq!(
            key.verify("msg_other", at, SIGNATURE, BODY, AT),
            Err(SignatureError::NoMatch)
        );
        assert_eq!(
            key.verify(ID, "1614265331", SIGNATURE, BODY, AT),
            Err(SignatureError::NoMatch)
        );
        assert_eq!(
            other.verify(ID, at, SIGNATURE, BODY, AT),
            Err(SignatureError::NoMatch)
        );
        assert_eq!(
            key.verify(ID, at, "", BODY, AT),
            Err(SignatureError::NoMatch)
        );
        assert_eq!(
            key.verify(ID, at, "v1,%%%", BODY, AT),
            Err(SignatureError::NoMatch)
        );
    }

    #[test]
    fn an_old_or_future_timestamp_is_refused_even_when_signed() {
        let key = WebhookKey::from_secret(SECRET).unwrap();
        let at = "1614265330";
        assert_eq!(
            key.verify(ID, at, SIGNATURE, BODY, AT + TOLERANCE_SECS + 1),
            Err(SignatureError::OutOfTolerance(TOLERANCE_SECS + 1))
        );
        assert_eq!(
            key.verify(ID, at, SIGNATURE, BODY, AT - TOLERANCE_SECS - 1),
            Err(SignatureError::OutOfTolerance(-TOLERANCE_SECS - 1))
        );
        assert_eq!(
            key.verify(ID, "yesterday", SIGNATURE, BODY, AT),
            Err(SignatureError::MalformedTimestamp)
        );
        // The ends of the range are refused, not overflowed.
        for extreme in [i64::MIN, i64::MAX] {
            let refused = key.verify(ID, &extreme.to_string(), SIGNATURE, BODY, -AT);
            assert!(
                matches!(refused, Err(SignatureError::OutOfTolerance(_))),
                "{refused:?}"
            );
        }
    }

    #[test]
    fn a_secret_must_be_whsec_and_base64() {
        for bad in ["MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_", "whsec_%%%"] {
            assert_eq!(
                WebhookKey::from_secret(bad),
                Err(SignatureError::MalformedSecret)
            );
        }
        assert_eq!(
            format!("{:?}", WebhookKey::new(b"k".to_vec())),
            "WebhookKey(…)"
        );
    }
}
