//! The status line under the form: what the page is doing or just did, kept
//! as what happened (not as words), so it reads in whichever language the
//! learner switches to, and tests can wait on its language-neutral state.

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;
use lab_wire::InvalidOrder;

use crate::api::ApiError;

/// What the status line says.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Status {
    /// Nothing has happened yet.
    #[default]
    Idle,
    /// The amount field does not hold an amount.
    AmountInvalid,
    /// The order was not sent: the servers would refuse it.
    InvalidOrder(InvalidOrder),
    /// A run is under way, sending this many copies.
    Sending { copies: u8 },
    /// The client gave up on attempts the servers are still working on.
    WaitingForAbandoned,
    /// The run is over.
    Done,
    /// Every server forgot this lab's orders and keys.
    ResetDone,
    /// A server did not clear this lab.
    ResetFailed(ApiError),
}

impl Status {
    /// The line in `locale`'s words; empty before anything happened.
    pub fn text(&self, locale: Locale) -> String {
        match self {
            Self::Idle => String::new(),
            Self::AmountInvalid => td_string!(locale, status.amount_invalid).into(),
            Self::InvalidOrder(InvalidOrder::EmptyItem) => {
                td_string!(locale, status.item_empty).into()
            }
            Self::InvalidOrder(InvalidOrder::ItemTooLong(chars)) => {
                td_string!(locale, status.item_too_long, chars = chars)
            }
            Self::InvalidOrder(InvalidOrder::AmountOutOfRange(_)) => {
                td_string!(locale, status.amount_out_of_range).into()
            }
            Self::InvalidOrder(InvalidOrder::ControlCharacter { at, code }) => {
                let code = format!("U+{code:04X}");
                td_string!(locale, status.item_control_character, at = at, code = code)
            }
            // One request or several copies at once: not a plural, a different run.
            Self::Sending { copies: 1 } => td_string!(locale, status.sending_one_request).into(),
            Self::Sending { copies } => {
                td_string!(locale, status.sending_copies, count = copies)
            }
            Self::WaitingForAbandoned => td_string!(locale, status.waiting_for_abandoned).into(),
            Self::Done => td_string!(locale, status.done).into(),
            Self::ResetDone => td_string!(locale, status.reset_done).into(),
            Self::ResetFailed(error) => {
                td_string!(locale, status.reset_failed, error = error.text(locale))
            }
        }
    }

    /// The line's `data-state`, the same in every language: `idle`,
    /// `refused`, `running`, `done` or `reset`.
    pub fn state(&self) -> &'static str {
        match self {
            Self::Idle => "idle",
            Self::AmountInvalid | Self::InvalidOrder(_) | Self::ResetFailed(_) => "refused",
            Self::Sending { .. } | Self::WaitingForAbandoned => "running",
            Self::Done => "done",
            Self::ResetDone => "reset",
        }
    }
}
