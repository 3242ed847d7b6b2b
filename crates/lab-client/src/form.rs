//! The client and server controls as the page's form shows them, and the
//! one table of fields the form is drawn from. Each field reads and writes
//! one part of a [`ClientForm`], so adding a control (or translating one)
//! is one row here, and the page never copies the policy field by field.

use lab_i18n::i18n::td_string;

use crate::ClientPolicy;
use crate::display::Text;
use crate::policy::{MAX_COPIES, MAX_RETRIES};

/// What the form holds: the policy, plus how many copies "Send
/// concurrently" sends, remembered while it is unticked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientForm {
    /// Whether "Send concurrently" is ticked.
    pub concurrent: bool,
    /// The number in "Copies" (2 or more), used while `concurrent`.
    pub copies: u8,
    /// Everything else, as the client will behave.
    pub policy: ClientPolicy,
}

impl Default for ClientForm {
    /// What the page opens with: one request, 3 copies ready and a 300 ms race window.
    fn default() -> Self {
        Self {
            concurrent: false,
            copies: 3,
            policy: ClientPolicy {
                server_delay_ms: 300,
                ..ClientPolicy::PLAIN
            },
        }
    }
}

impl ClientForm {
    /// The client behaviour the form describes, within the ranges the page offers.
    pub fn policy(&self) -> ClientPolicy {
        ClientPolicy {
            copies: if self.concurrent { self.copies } else { 1 },
            ..self.policy.clone()
        }
        .clamped()
    }

    /// Shows `policy` (a scenario's); "Copies" keeps its number when the
    /// scenario sends one request.
    pub fn show(&mut self, policy: &ClientPolicy) {
        self.concurrent = policy.copies > 1;
        if self.concurrent {
            self.copies = policy.copies;
        }
        self.policy = policy.clone();
    }
}

/// Which fieldset a field belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldGroup {
    /// How the client sends and retries.
    Client,
    /// What the server is asked to do.
    Server,
}

/// What kind of control a field is, and how it reads and writes the form.
#[derive(Debug, Clone, Copy)]
pub enum FieldKind {
    /// A checkbox.
    Check {
        /// Whether it is ticked.
        get: fn(&ClientForm) -> bool,
        /// Ticks or unticks it.
        set: fn(&mut ClientForm, bool),
    },
    /// A whole number in `min..=max`.
    Number {
        /// Its value.
        get: fn(&ClientForm) -> u32,
        /// Sets it (already within range).
        set: fn(&mut ClientForm, u32),
        /// The smallest value.
        min: u32,
        /// The largest value.
        max: u32,
        /// The step of its arrows.
        step: u32,
        /// Whether it can be changed now.
        enabled: fn(&ClientForm) -> bool,
    },
}

/// One labelled control of the form.
#[derive(Debug, Clone, Copy)]
pub struct FormField {
    /// The element id: stable across languages, so tests and links can use it.
    pub id: &'static str,
    /// Its fieldset.
    pub group: FieldGroup,
    /// The visible label.
    pub label: Text,
    /// The hint under it.
    pub hint: Text,
    /// The control and what it changes.
    pub kind: FieldKind,
}

const fn always(_: &ClientForm) -> bool {
    true
}

/// A number typed into the form, as the policy's `u8` fields keep it.
fn narrow(value: u32) -> u8 {
    u8::try_from(value).unwrap_or(u8::MAX)
}

/// Every control of the client and server fieldsets, in the order shown.
pub const FORM_FIELDS: [FormField; 17] = [
    FormField {
        id: "drop-response",
        group: FieldGroup::Client,
        label: |locale| td_string!(locale, field.drop_response).into(),
        hint: |locale| td_string!(locale, field.drop_response_hint).into(),
        kind: FieldKind::Check {
            get: |form| form.policy.drop_response,
            set: |form, on| form.policy.drop_response = on,
        },
    },
    FormField {
        id: "send-concurrently",
        group: FieldGroup::Client,
        label: |locale| td_string!(locale, field.send_concurrently).into(),
        hint: |locale| td_string!(locale, field.send_concurrently_hint).into(),
        kind: FieldKind::Check {
            get: |form| form.concurrent,
            set: |form, on| form.concurrent = on,
        },
    },
    FormField {
        id: "copies",
        group: FieldGroup::Client,
        label: |locale| td_string!(locale, field.copies).into(),
        hint: |locale| td_string!(locale, field.copies_hint).into(),
        kind: FieldKind::Number {
            get: |form| u32::from(form.copies),
            set: |form, copies| form.copies = narrow(copies),
            min: 2,
            max: MAX_COPIES as u32,
            step: 1,
            enabled: |form| form.concurrent,
        },
    },
    FormField {
        id: "client-timeout",
        group: FieldGroup::Client,
        label: |locale| td_string!(locale, field.client_timeout).into(),
        hint: |locale| td_string!(locale, field.client_timeout_hint).into(),
        kind: FieldKind::Number {
            get: |form| form.policy.timeout_ms,
            set: |form, ms| form.policy.timeout_ms = ms,
            min: 0,
            max: 60_000,
            step: 100,
            enabled: always,
        },
    },
    FormField {
        id: "retries",
        group: FieldGroup::Client,
        label: |locale| td_string!(locale, field.retries).into(),
        hint: |locale| td_string!(locale, field.retries_hint).into(),
        kind: FieldKind::Number {
            get: |form| u32::from(form.policy.retries),
            set: |form, retries| form.policy.retries = narrow(retries),
            min: 0,
            max: MAX_RETRIES as u32,
            step: 1,
            enabled: always,
        },
    },
    FormField {
        id: "backoff",
        group: FieldGroup::Client,
        label: |locale| td_string!(locale, field.backoff).into(),
        hint: |locale| td_string!(locale, field.backoff_hint).into(),
        kind: FieldKind::Number {
            get: |form| form.policy.backoff_ms,
            set: |form, ms| form.policy.backoff_ms = ms,
            min: 0,
            max: 10_000,
            step: 100,
            enabled: always,
        },
    },
    FormField {
        id: "change-order-on-retry",
        group: FieldGroup::Client,
        label: |locale| td_string!(locale, field.change_order_on_retry).into(),
        hint: |locale| td_string!(locale, field.change_order_on_retry_hint).into(),
        kind: FieldKind::Check {
            get: |form| form.policy.change_order_on_retry,
            set: |form, on| form.policy.change_order_on_retry = on,
        },
    },
    FormField {
        id: "no-key",
        group: FieldGroup::Client,
        label: |locale| td_string!(locale, field.no_key).into(),
        hint: |locale| td_string!(locale, field.no_key_hint).into(),
        kind: FieldKind::Check {
            get: |form| form.policy.no_key,
            set: |form, on| form.policy.no_key = on,
        },
    },
    FormField {
        id: "new-key-per-attempt",
        group: FieldGroup::Client,
        label: |locale| td_string!(locale, field.new_key_per_attempt).into(),
        hint: |locale| td_string!(locale, field.new_key_per_attempt_hint).into(),
        kind: FieldKind::Check {
            get: |form| form.policy.new_key_per_attempt,
            set: |form, on| form.policy.new_key_per_attempt = on,
        },
    },
    FormField {
        id: "crash-after-create",
        group: FieldGroup::Server,
        label: |locale| td_string!(locale, field.crash_after_create).into(),
        hint: |locale| td_string!(locale, field.crash_after_create_hint).into(),
        kind: FieldKind::Check {
            get: |form| form.policy.crash_after_create,
            set: |form, on| form.policy.crash_after_create = on,
        },
    },
    FormField {
        id: "side-effects",
        group: FieldGroup::Server,
        label: |locale| td_string!(locale, field.side_effects).into(),
        hint: |locale| td_string!(locale, field.side_effects_hint).into(),
        kind: FieldKind::Check {
            get: |form| form.policy.side_effects,
            set: |form, on| form.policy.side_effects = on,
        },
    },
    FormField {
        id: "crash-after-charge",
        group: FieldGroup::Server,
        label: |locale| td_string!(locale, field.crash_after_charge).into(),
        hint: |locale| td_string!(locale, field.crash_after_charge_hint).into(),
        kind: FieldKind::Check {
            get: |form| form.policy.crash_after_charge,
            set: |form, on| form.policy.crash_after_charge = on,
        },
    },
    FormField {
        id: "fencing",
        group: FieldGroup::Server,
        label: |locale| td_string!(locale, field.fencing).into(),
        hint: |locale| td_string!(locale, field.fencing_hint).into(),
        kind: FieldKind::Check {
            get: |form| form.policy.fencing,
            set: |form, on| form.policy.fencing = on,
        },
    },
    FormField {
        id: "cancel-on-disconnect",
        group: FieldGroup::Server,
        label: |locale| td_string!(locale, field.cancel_on_disconnect).into(),
        hint: |locale| td_string!(locale, field.cancel_on_disconnect_hint).into(),
        kind: FieldKind::Check {
            get: |form| form.policy.cancel_on_disconnect,
            set: |form, on| form.policy.cancel_on_disconnect = on,
        },
    },
    FormField {
        id: "lock-timeout",
        group: FieldGroup::Server,
        label: |locale| td_string!(locale, field.lock_timeout).into(),
        hint: |locale| td_string!(locale, field.lock_timeout_hint).into(),
        kind: FieldKind::Number {
            get: |form| form.policy.lock_timeout_secs,
            set: |form, secs| form.policy.lock_timeout_secs = secs,
            min: 0,
            max: 3600,
            step: 1,
            enabled: always,
        },
    },
    FormField {
        id: "key-retention",
        group: FieldGroup::Server,
        label: |locale| td_string!(locale, field.key_retention).into(),
        hint: |locale| td_string!(locale, field.key_retention_hint).into(),
        kind: FieldKind::Number {
            get: |form| form.policy.key_retention_secs,
            set: |form, secs| form.policy.key_retention_secs = secs,
            min: 0,
            max: 86_400,
            step: 1,
            enabled: always,
        },
    },
    FormField {
        id: "server-processing-time",
        group: FieldGroup::Server,
        label: |locale| td_string!(locale, field.server_processing_time).into(),
        hint: |locale| td_string!(locale, field.server_processing_time_hint).into(),
        kind: FieldKind::Number {
            get: |form| form.policy.server_delay_ms,
            set: |form, ms| form.policy.server_delay_ms = ms,
            min: 0,
            max: 10_000,
            step: 100,
            enabled: always,
        },
    },
];

/// Every field of `group`, in the order shown.
pub fn fields_of(group: FieldGroup) -> impl Iterator<Item = &'static FormField> {
    FORM_FIELDS.iter().filter(move |field| field.group == group)
}

#[cfg(test)]
mod tests;
