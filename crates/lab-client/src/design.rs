//! The server designs a pane can show, and what the page says of each.

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;

/// One of the lab's order servers: the same API, a different way of keeping
/// a key from creating two orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Design {
    /// Looks the key up, then creates the order, then saves the key.
    Naive,
    /// The naive flow behind a lock per key in the server process's memory.
    Locked,
    /// The article's fix: claims the key in a UNIQUE column first; claim,
    /// order and answer are three separate statements.
    Safe,
    /// The same claim, with claim, order and answer in one transaction.
    Transactional,
    /// Atomic phases: recovery points on the key, each phase committed
    /// before the next call outside, a derived key for the provider, and
    /// the e-mail in an outbox.
    Phased,
}

/// What the two panes show when the page opens: the mistake next to the design that survives crashes too.
pub const DEFAULT_PANES: [Design; 2] = [Design::Naive, Design::Transactional];

impl Design {
    /// Every design, in the order a learner meets them.
    pub const ALL: [Self; 5] = [
        Self::Naive,
        Self::Locked,
        Self::Safe,
        Self::Transactional,
        Self::Phased,
    ];

    /// The server's name in URLs and in the combined step stream: `naive`, `safe`, `transactional`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Naive => "naive",
            Self::Locked => "locked",
            Self::Safe => "safe",
            Self::Transactional => "transactional",
            Self::Phased => "phased",
        }
    }

    /// The design called `name` (see [`Self::name`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|design| design.name() == name)
    }

    /// The pane's heading: `Naive`, `朴素版`.
    pub fn title(self, locale: Locale) -> String {
        match self {
            Self::Naive => td_string!(locale, design.naive),
            Self::Locked => td_string!(locale, design.locked),
            Self::Safe => td_string!(locale, design.safe),
            Self::Transactional => td_string!(locale, design.transactional),
            Self::Phased => td_string!(locale, design.phased),
        }
        .into()
    }

    /// The choice as a pane's selector lists it.
    pub fn choice(self, locale: Locale) -> String {
        match self {
            Self::Naive => td_string!(locale, design.naive_choice),
            Self::Locked => td_string!(locale, design.locked_choice),
            Self::Safe => td_string!(locale, design.safe_choice),
            Self::Transactional => td_string!(locale, design.transactional_choice),
            Self::Phased => td_string!(locale, design.phased_choice),
        }
        .into()
    }

    /// How the server works, in one sentence under the pane's heading.
    pub fn how(self, locale: Locale) -> String {
        match self {
            Self::Naive => td_string!(locale, design.naive_how),
            Self::Locked => td_string!(locale, design.locked_how),
            Self::Safe => td_string!(locale, design.safe_how),
            Self::Transactional => td_string!(locale, design.transactional_how),
            Self::Phased => td_string!(locale, design.phased_how),
        }
        .into()
    }

    /// Where the server takes orders: `/api/naive/orders`.
    pub fn orders_url(self) -> String {
        format!("/api/{}/orders", self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_design_is_found_again_by_its_name() {
        for design in Design::ALL {
            assert_eq!(Design::from_name(design.name()), Some(design));
        }
        assert_eq!(Design::from_name("Naive"), None, "names are lowercase");
        assert_eq!(Design::from_name(""), None);
    }

    #[test]
    fn the_page_opens_on_two_different_servers() {
        let [first, second] = DEFAULT_PANES;
        assert_ne!(first, second);
    }
}
