//! The server designs a pane can show, and what the page says of each.

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;
pub use lab_wire::run::Design;

/// What the two panes show when the page opens: the mistake next to the design that survives crashes too.
pub const DEFAULT_PANES: [Design; 2] = [Design::Naive, Design::Transactional];

/// What the page says of a design, in the learner's language.
pub trait DesignText {
    /// The pane's heading: `Naive`, `朴素版`.
    fn title(self, locale: Locale) -> String;
    /// The choice as a pane's selector lists it.
    fn choice(self, locale: Locale) -> String;
    /// How the server works, in one sentence under the pane's heading.
    fn how(self, locale: Locale) -> String;
}

impl DesignText for Design {
    fn title(self, locale: Locale) -> String {
        match self {
            Self::Naive => td_string!(locale, design.naive),
            Self::Locked => td_string!(locale, design.locked),
            Self::Safe => td_string!(locale, design.safe),
            Self::Transactional => td_string!(locale, design.transactional),
            Self::Phased => td_string!(locale, design.phased),
            Self::OneTrip => td_string!(locale, design.onetrip),
        }
        .into()
    }

    fn choice(self, locale: Locale) -> String {
        match self {
            Self::Naive => td_string!(locale, design.naive_choice),
            Self::Locked => td_string!(locale, design.locked_choice),
            Self::Safe => td_string!(locale, design.safe_choice),
            Self::Transactional => td_string!(locale, design.transactional_choice),
            Self::Phased => td_string!(locale, design.phased_choice),
            Self::OneTrip => td_string!(locale, design.onetrip_choice),
        }
        .into()
    }

    fn how(self, locale: Locale) -> String {
        match self {
            Self::Naive => td_string!(locale, design.naive_how),
            Self::Locked => td_string!(locale, design.locked_how),
            Self::Safe => td_string!(locale, design.safe_how),
            Self::Transactional => td_string!(locale, design.transactional_how),
            Self::Phased => td_string!(locale, design.phased_how),
            Self::OneTrip => td_string!(locale, design.onetrip_how),
        }
        .into()
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
