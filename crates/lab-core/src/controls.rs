//! The demo controls a request can carry (`Lab-Delay-Ms`, `Lab-Fault`,
//! `Lab-Key-Retention-Secs`, `Lab-Lock-Timeout-Secs`, `Lab-Cancellation`,
//! `Lab-Missing-Key`, `Lab-Side-Effects`, `Lab-Fencing`): how a learner
//! makes the server slow, faulty or forgetful on purpose, lets it take a
//! POST without a key, has it charge a card and send an e-mail, or fences
//! its late writes.

use std::time::Duration;

use axum::http::HeaderMap;
use lab_wire::StepKind;
use lab_wire::headers::{
    DEFAULT_KEY_RETENTION_SECS, DEFAULT_LOCK_TIMEOUT_SECS, LAB_CANCELLATION, LAB_DELAY_MS,
    LAB_FAULT, LAB_FENCING, LAB_KEY_RETENTION_SECS, LAB_LOCK_TIMEOUT_SECS, LAB_MISSING_KEY,
    LAB_SIDE_EFFECTS, MAX_DELAY_MS, MAX_KEY_RETENTION_SECS, MAX_LOCK_TIMEOUT_SECS,
};

use crate::fault::{Fault, WorkPoint};
use crate::steps::Steps;
use lab_platform::LabError;
use lab_platform::headers::{number_header, single_header};

/// The demo controls a request carries: the race window, a fault, and how
/// long its key is kept.
#[derive(Debug, Clone, Copy)]
pub struct DemoControls {
    /// How long to pause between looking at the key and creating the order.
    pub delay: Duration,
    /// A fault to inject, if any.
    pub fault: Option<Fault>,
    /// How long the key is kept; a retry after that is a new request.
    pub key_retention: Duration,
    /// How long an unanswered claim blocks retries before one may take it over.
    pub lock_timeout: Duration,
    /// Whether the work stops when the client hangs up, instead of finishing.
    pub cancel_on_disconnect: bool,
    /// Whether a request without a key is a plain POST (`Lab-Missing-Key:
    /// create`) instead of a 400.
    pub create_without_key: bool,
    /// Whether an order charges the card and e-mails a receipt
    /// (`Lab-Side-Effects: charge-and-email`).
    pub side_effects: bool,
    /// Whether the safe server checks, as it writes the order, that the
    /// request still holds its claim (`Lab-Fencing: on`).
    pub fencing: bool,
}

impl Default for DemoControls {
    fn default() -> Self {
        Self {
            delay: Duration::ZERO,
            fault: None,
            key_retention: Duration::from_secs(DEFAULT_KEY_RETENTION_SECS),
            lock_timeout: Duration::from_secs(DEFAULT_LOCK_TIMEOUT_SECS),
            cancel_on_disconnect: false,
            create_without_key: false,
            side_effects: false,
            fencing: false,
        }
    }
}

impl DemoControls {
    /// When a key stored now stops counting.
    pub fn key_expires_at(&self) -> chrono::DateTime<chrono::Utc> {
        from_now(self.key_retention)
    }

    /// Until when a claim made now blocks retries if it is never answered.
    pub fn locked_until(&self) -> chrono::DateTime<chrono::Utc> {
        from_now(self.lock_timeout)
    }

    /// The failure the request asked for at `point` of the work, if any:
    /// `Err` with a crash (`crash-after-create`: nothing runs after it, no
    /// answer) or an error the server survives (`error-before-create`,
    /// `error-after-create`: answered 500). A flow calls it where the
    /// order is written, and treats its `Err` as any other failure there.
    pub fn fails_at(&self, point: WorkPoint) -> Result<(), LabError> {
        match self.fault.and_then(|fault| fault.strikes_at(point)) {
            Some(failure) => Err(failure),
            None => Ok(()),
        }
    }

    /// Whether the request asked the server to crash right after the charge.
    pub fn crashes_after_charge(&self) -> bool {
        self.fault == Some(Fault::CrashAfterCharge)
    }

    /// Whether the request asked the provider to charge and then time out.
    pub fn provider_times_out(&self) -> bool {
        self.fault == Some(Fault::ProviderTimeout)
    }

    /// Waits for the requested race window, if any.
    pub async fn pause(&self) {
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
    }

    /// The slow part of the work (the race window), reported as a step.
    pub async fn slow_part(&self, steps: &Steps) {
        if !self.delay.is_zero() {
            steps.record(StepKind::SlowPartStarted {
                ms: u64::try_from(self.delay.as_millis()).unwrap_or(u64::MAX),
            });
        }
        self.pause().await;
    }

    /// The controls `headers` ask for; a bad value is the client's 4xx.
    pub fn from_headers(headers: &HeaderMap) -> Result<Self, LabError> {
        let delay = number_header(
            headers,
            LAB_DELAY_MS,
            "Lab-Delay-Ms",
            0..=MAX_DELAY_MS,
            LabError::InvalidDelay,
        )?
        .map_or(Duration::ZERO, Duration::from_millis);
        let fault = single_header(headers, LAB_FAULT, "Lab-Fault")?
            .map(|value| Fault::parse(&String::from_utf8_lossy(value.as_bytes())))
            .transpose()?;
        let key_retention = number_header(
            headers,
            LAB_KEY_RETENTION_SECS,
            "Lab-Key-Retention-Secs",
            1..=MAX_KEY_RETENTION_SECS,
            LabError::InvalidRetention,
        )?
        .map_or(
            Duration::from_secs(DEFAULT_KEY_RETENTION_SECS),
            Duration::from_secs,
        );
        let lock_timeout = number_header(
            headers,
            LAB_LOCK_TIMEOUT_SECS,
            "Lab-Lock-Timeout-Secs",
            1..=MAX_LOCK_TIMEOUT_SECS,
            LabError::InvalidLockTimeout,
        )?
        .map_or(
            Duration::from_secs(DEFAULT_LOCK_TIMEOUT_SECS),
            Duration::from_secs,
        );
        let cancel_on_disconnect = switch(
            headers,
            (LAB_CANCELLATION, "Lab-Cancellation"),
            ["finish", "on-disconnect"],
            LabError::InvalidCancellation,
        )?;
        let create_without_key = switch(
            headers,
            (LAB_MISSING_KEY, "Lab-Missing-Key"),
            ["refuse", "create"],
            LabError::InvalidMissingKey,
        )?;
        let side_effects = switch(
            headers,
            (LAB_SIDE_EFFECTS, "Lab-Side-Effects"),
            ["none", "charge-and-email"],
            LabError::InvalidSideEffects,
        )?;
        let fencing = switch(
            headers,
            (LAB_FENCING, "Lab-Fencing"),
            ["off", "on"],
            LabError::InvalidFencing,
        )?;
        // Without a charge there is nothing for these faults to strike.
        if !side_effects {
            match fault {
                Some(Fault::CrashAfterCharge) => {
                    return Err(LabError::FaultNeedsSideEffects("crash-after-charge"));
                }
                Some(Fault::ProviderTimeout) => {
                    return Err(LabError::FaultNeedsSideEffects("provider-timeout"));
                }
                _ => {}
            }
        }
        Ok(Self {
            delay,
            fault,
            key_retention,
            lock_timeout,
            cancel_on_disconnect,
            create_without_key,
            side_effects,
            fencing,
        })
    }
}

/// A header with two values, `[off, on]`: whether it is `on` (absent is
/// `off`); anything else is `invalid`'s 400.
fn switch(
    headers: &HeaderMap,
    (name, shown): (&'static str, &'static str),
    [off, on]: [&str; 2],
    invalid: fn(String) -> LabError,
) -> Result<bool, LabError> {
    match single_header(headers, name, shown)? {
        None => Ok(false),
        Some(value) => match String::from_utf8_lossy(value.as_bytes()).trim() {
            value if value == off => Ok(false),
            value if value == on => Ok(true),
            other => Err(invalid(other.to_owned())),
        },
    }
}

fn from_now(duration: Duration) -> chrono::DateTime<chrono::Utc> {
    let duration = chrono::Duration::from_std(duration).unwrap_or(chrono::Duration::MAX);
    chrono::Utc::now()
        .checked_add_signed(duration)
        .unwrap_or(chrono::DateTime::<chrono::Utc>::MAX_UTC)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab_platform::headers::header_map as headers;

    #[test]
    fn delays_above_ten_seconds_and_negative_delays_are_refused() {
        let ok = DemoControls::from_headers(&headers(&[("lab-delay-ms", "200")])).unwrap();
        assert_eq!(ok.delay, Duration::from_millis(200));
        for bad in ["10001", "-1", "soon", "1.5"] {
            assert!(
                matches!(
                    DemoControls::from_headers(&headers(&[("lab-delay-ms", bad)])),
                    Err(LabError::InvalidDelay(_))
                ),
                "{bad} was accepted"
            );
        }
    }

    #[test]
    fn key_retention_defaults_to_a_day_and_accepts_one_second_to_thirty_days() {
        assert_eq!(
            DemoControls::from_headers(&HeaderMap::new())
                .unwrap()
                .key_retention,
            Duration::from_secs(86_400)
        );
        let short =
            DemoControls::from_headers(&headers(&[("lab-key-retention-secs", "2")])).unwrap();
        assert_eq!(short.key_retention, Duration::from_secs(2));
        for bad in ["0", "2592001", "soon", "-5"] {
            assert!(
                matches!(
                    DemoControls::from_headers(&headers(&[("lab-key-retention-secs", bad)])),
                    Err(LabError::InvalidRetention(_))
                ),
                "{bad} was accepted"
            );
        }
    }

    #[test]
    fn work_finishes_by_default_and_stops_on_disconnect_only_when_asked() {
        assert!(
            !DemoControls::from_headers(&HeaderMap::new())
                .unwrap()
                .cancel_on_disconnect
        );
        let asked =
            DemoControls::from_headers(&headers(&[("lab-cancellation", "on-disconnect")])).unwrap();
        assert!(asked.cancel_on_disconnect);
        assert!(matches!(
            DemoControls::from_headers(&headers(&[("lab-cancellation", "maybe")])),
            Err(LabError::InvalidCancellation(_))
        ));
    }

    #[test]
    fn a_missing_key_is_refused_unless_the_request_asks_for_a_plain_post() {
        let plain = |value: &str| {
            DemoControls::from_headers(&headers(&[("lab-missing-key", value)]))
                .map(|controls| controls.create_without_key)
        };
        assert!(
            !DemoControls::from_headers(&HeaderMap::new())
                .unwrap()
                .create_without_key
        );
        assert!(!plain("refuse").unwrap());
        assert!(plain("create").unwrap());
        assert!(matches!(
            plain("sometimes"),
            Err(LabError::InvalidMissingKey(_))
        ));
    }

    #[test]
    fn side_effects_and_fencing_are_off_unless_asked_and_the_charge_faults_need_side_effects() {
        let none = DemoControls::from_headers(&HeaderMap::new()).unwrap();
        assert!(!none.side_effects && !none.fencing);
        let asked = DemoControls::from_headers(&headers(&[
            ("lab-side-effects", "charge-and-email"),
            ("lab-fencing", "on"),
            ("lab-fault", "crash-after-charge"),
        ]))
        .unwrap();
        assert!(asked.side_effects && asked.fencing && asked.crashes_after_charge());
        assert!(matches!(
            DemoControls::from_headers(&headers(&[("lab-side-effects", "all")])),
            Err(LabError::InvalidSideEffects(_))
        ));
        assert!(matches!(
            DemoControls::from_headers(&headers(&[("lab-fencing", "yes")])),
            Err(LabError::InvalidFencing(_))
        ));
        for fault in ["crash-after-charge", "provider-timeout"] {
            assert!(matches!(
                DemoControls::from_headers(&headers(&[("lab-fault", fault)])),
                Err(LabError::FaultNeedsSideEffects(named)) if named == fault
            ));
        }
    }
}
