//! The provider's webhook secrets: one per lab, as a provider gives each
//! shop its own.

use lab_wire::LabId;
use webhook_signature::WebhookKey;

/// The provider's webhook secrets, one per lab, derived from a key made
/// at start (HMAC-SHA256 of the lab's id): nothing to store, a lab's
/// secret opens no other lab's receivers, and a restarted lab has new ones.
#[derive(Clone)]
pub struct WebhookSecrets(WebhookKey);

impl WebhookSecrets {
    /// Secrets derived from a new random key.
    pub fn generate() -> Self {
        let random = [uuid::Uuid::new_v4(), uuid::Uuid::new_v4()];
        Self(WebhookKey::new(
            random
                .iter()
                .flat_map(|id| *id.as_bytes())
                .collect::<Vec<u8>>(),
        ))
    }

    /// The key the provider and the receivers of `lab` share.
    pub fn for_lab(&self, lab: &LabId) -> WebhookKey {
        self.0
            .derive(format!("webhook secret of lab {}", lab.as_str()).as_bytes())
    }
}

impl std::fmt::Debug for WebhookSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebhookSecrets(…)")
    }
}

#[cfg(test)]
mod tests {
    use webhook_signature::SignatureError;

    use super::*;

    const AT: i64 = 1_614_265_330;
    const BODY: &[u8] = b"{}";

    #[test]
    fn each_lab_has_a_secret_of_its_own_that_another_start_does_not_share() {
        let secrets = WebhookSecrets::generate();
        let a = LabId::try_from("lab-a").unwrap();
        let b = LabId::try_from("lab-b").unwrap();
        assert_eq!(secrets.for_lab(&a), secrets.for_lab(&a));
        assert_ne!(secrets.for_lab(&a), secrets.for_lab(&b));
        assert_ne!(WebhookSecrets::generate().for_lab(&a), secrets.for_lab(&a));
        let signed = secrets.for_lab(&a).sign("evt_1", AT, BODY);
        assert_eq!(
            secrets
                .for_lab(&b)
                .verify("evt_1", &AT.to_string(), &signed, BODY, AT),
            Err(SignatureError::NoMatch)
        );
    }
}
