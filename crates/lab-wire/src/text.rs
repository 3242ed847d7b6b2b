//! Free text that reaches a database: what every store accepts alike.
//!
//! PostgreSQL's `text` cannot hold U+0000 (SQLite's can), so a NUL that
//! got through would be stored on one database and a 500 on the other.
//! The lab refuses every control character in the free text it keeps (an
//! item, an e-mail's subject) instead, the same on both; everything else
//! Unicode allows — emoji, right-to-left marks, combining accents — is
//! stored as it was sent.

/// The first control character in `text` (Unicode's `Cc`: U+0000–U+001F
/// and U+007F–U+009F), with its position counted in characters from 1.
pub fn first_control_character(text: &str) -> Option<(usize, char)> {
    text.chars()
        .enumerate()
        .find(|(_, c)| c.is_control())
        .map(|(index, c)| (index + 1, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_tab_delete_and_c1_controls_are_found_where_they_are() {
        assert_eq!(first_control_character("a\u{0}b"), Some((2, '\u{0}')));
        assert_eq!(first_control_character("\tx"), Some((1, '\t')));
        assert_eq!(first_control_character("é\u{7f}"), Some((2, '\u{7f}')));
        assert_eq!(first_control_character("xy\u{9f}"), Some((3, '\u{9f}')));
    }

    #[test]
    fn format_characters_and_symbols_are_not_control_characters() {
        for text in [
            "\u{200F}", "\u{202E}", "\u{FEFF}", "e\u{301}", "🍰", "\u{a0}",
        ] {
            assert_eq!(first_control_character(text), None, "{text:?}");
        }
    }
}
