//! One-click scenarios: the rows of the teaching matrix, and a cancelled hang-up.

use lab_i18n::i18n::td_string;

use crate::ClientPolicy;
use crate::design::{DEFAULT_PANES, Design};
use crate::display::Text;

/// A scenario: how the client behaves, and what to look for.
#[derive(Debug, Clone)]
pub struct Preset {
    /// A name that stays the same in every language: the button's id is
    /// `preset-` and this, for links and tests.
    pub id: &'static str,
    /// The button's text.
    pub name: Text,
    /// The client behaviour it sets.
    pub policy: ClientPolicy,
    /// The servers the two panes show: the pair this scenario's lesson compares.
    pub panes: [Design; 2],
    /// What happens and what to notice, in plain words.
    pub explanation: Text,
}

/// The scenario called `id` (see [`Preset::id`]), if there is one.
pub fn preset(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|preset| preset.id == id)
}

/// The article's safe server beside the transactional one: where a crash
/// or a hang-up mid-request tells the two designs apart.
const SAFE_BESIDE_TRANSACTIONAL: [Design; 2] = [Design::Safe, Design::Transactional];

/// The scenarios, in teaching order: the teaching matrix's rows.
pub static PRESETS: [Preset; 11] = [
    Preset {
        id: "dropped-response",
        name: |locale| td_string!(locale, preset.dropped_response).into(),
        policy: ClientPolicy {
            drop_response: true,
            ..ClientPolicy::PLAIN
        },
        panes: DEFAULT_PANES,
        explanation: |locale| td_string!(locale, preset.dropped_response_explanation).into(),
    },
    Preset {
        id: "concurrent-sends",
        name: |locale| td_string!(locale, preset.concurrent_sends).into(),
        policy: ClientPolicy {
            copies: 3,
            retries: 0,
            server_delay_ms: 300,
            ..ClientPolicy::PLAIN
        },
        panes: DEFAULT_PANES,
        explanation: |locale| td_string!(locale, preset.concurrent_sends_explanation).into(),
    },
    Preset {
        id: "slow-response",
        name: |locale| td_string!(locale, preset.slow_response).into(),
        policy: ClientPolicy {
            retries: 3,
            timeout_ms: 500,
            server_delay_ms: 1200,
            ..ClientPolicy::PLAIN
        },
        panes: [Design::Naive, Design::Safe],
        explanation: |locale| td_string!(locale, preset.slow_response_explanation).into(),
    },
    Preset {
        id: "new-key-per-attempt",
        name: |locale| td_string!(locale, preset.new_key_per_attempt).into(),
        policy: ClientPolicy {
            new_key_per_attempt: true,
            drop_response: true,
            ..ClientPolicy::PLAIN
        },
        panes: DEFAULT_PANES,
        explanation: |locale| td_string!(locale, preset.new_key_per_attempt_explanation).into(),
    },
    Preset {
        id: "crash",
        name: |locale| td_string!(locale, preset.crash).into(),
        policy: ClientPolicy {
            retries: 4,
            crash_after_create: true,
            lock_timeout_secs: 1,
            ..ClientPolicy::PLAIN
        },
        panes: SAFE_BESIDE_TRANSACTIONAL,
        explanation: |locale| td_string!(locale, preset.crash_explanation).into(),
    },
    Preset {
        id: "changed-payload",
        name: |locale| td_string!(locale, preset.changed_payload).into(),
        policy: ClientPolicy {
            drop_response: true,
            change_order_on_retry: true,
            ..ClientPolicy::PLAIN
        },
        panes: DEFAULT_PANES,
        explanation: |locale| td_string!(locale, preset.changed_payload_explanation).into(),
    },
    Preset {
        id: "expiry",
        name: |locale| td_string!(locale, preset.expiry).into(),
        policy: ClientPolicy {
            retries: 1,
            backoff_ms: 2500,
            drop_response: true,
            key_retention_secs: 2,
            ..ClientPolicy::PLAIN
        },
        panes: DEFAULT_PANES,
        explanation: |locale| td_string!(locale, preset.expiry_explanation).into(),
    },
    Preset {
        id: "hang-up",
        name: |locale| td_string!(locale, preset.hang_up).into(),
        policy: ClientPolicy {
            timeout_ms: 400,
            lock_timeout_secs: 1,
            cancel_on_disconnect: true,
            server_delay_ms: 800,
            ..ClientPolicy::PLAIN
        },
        panes: SAFE_BESIDE_TRANSACTIONAL,
        explanation: |locale| td_string!(locale, preset.hang_up_explanation).into(),
    },
    Preset {
        id: "in-process-lock",
        name: |locale| td_string!(locale, preset.in_process_lock).into(),
        policy: ClientPolicy {
            copies: 3,
            retries: 0,
            server_delay_ms: 300,
            ..ClientPolicy::PLAIN
        },
        panes: [Design::Locked, Design::Transactional],
        explanation: |locale| td_string!(locale, preset.in_process_lock_explanation).into(),
    },
    Preset {
        id: "provider-in-transaction",
        name: |locale| td_string!(locale, preset.provider_in_transaction).into(),
        policy: ClientPolicy {
            side_effects: true,
            crash_after_charge: true,
            // The atomic-phases key stays locked a second after the crash:
            // retries 0.6, 1.8 and 4.2 s after it reach past that.
            lock_timeout_secs: 1,
            retries: 3,
            backoff_ms: 600,
            ..ClientPolicy::PLAIN
        },
        panes: [Design::Transactional, Design::Phased],
        explanation: |locale| td_string!(locale, preset.provider_in_transaction_explanation).into(),
    },
    Preset {
        id: "lock-shorter-than-work",
        name: |locale| td_string!(locale, preset.lock_shorter).into(),
        policy: ClientPolicy {
            side_effects: true,
            server_delay_ms: 3000,
            lock_timeout_secs: 1,
            timeout_ms: 1500,
            retries: 1,
            backoff_ms: 0,
            ..ClientPolicy::PLAIN
        },
        panes: SAFE_BESIDE_TRANSACTIONAL,
        explanation: |locale| td_string!(locale, preset.lock_shorter_explanation).into(),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_within_the_ranges_the_page_offers() {
        for preset in &PRESETS {
            assert_eq!(
                preset.policy.clone().clamped(),
                preset.policy,
                "{}",
                preset.id
            );
        }
    }

    #[test]
    fn every_preset_has_its_own_id() {
        let ids: std::collections::HashSet<_> = PRESETS.iter().map(|p| p.id).collect();
        assert_eq!(ids.len(), PRESETS.len());
    }

    #[test]
    fn every_preset_is_found_by_its_id_and_has_its_own_name_in_each_language() {
        for each in &PRESETS {
            assert!(std::ptr::eq(preset(each.id).unwrap(), each), "{}", each.id);
        }
        assert!(preset("no-such-scenario").is_none());
        for locale in lab_i18n::LOCALES {
            let names: std::collections::HashSet<_> =
                PRESETS.iter().map(|p| (p.name)(locale)).collect();
            assert_eq!(names.len(), PRESETS.len(), "{locale:?}");
            for each in &PRESETS {
                assert!((each.explanation)(locale).len() > (each.name)(locale).len());
            }
        }
        assert_eq!((PRESETS[1].name)(lab_i18n::Locale::zh_CN), "并发发送");
    }

    #[test]
    fn every_preset_compares_two_different_servers() {
        for preset in &PRESETS {
            let [first, second] = preset.panes;
            assert_ne!(first, second, "{}", preset.id);
        }
    }

    #[test]
    fn the_timeout_preset_gives_up_before_the_server_is_done_and_retries_after() {
        let policy = &preset("slow-response").unwrap().policy;
        assert!(policy.timeout_ms < policy.server_delay_ms);
        // Even if every retry is answered at once (409), the last one must
        // start after the first request has finished, or it could never see
        // the stored answer.
        let pauses: u32 = (2..=policy.retries + 1)
            .map(|number| policy.backoff_before(number))
            .sum();
        let earliest_last_start = policy.timeout_ms + pauses;
        assert!(
            earliest_last_start > policy.server_delay_ms,
            "last retry at {earliest_last_start} ms"
        );
    }
}
