//! How the page writes amounts and keys, and reads the amount a learner types.

use lab_i18n::Locale;

/// A text of the page in the learner's language, as a table row (a
/// scenario, a form field) holds it: the catalogue message it renders.
pub type Text = fn(Locale) -> String;

/// Cents as a decimal amount: `450` → `4.50`.
pub fn money(cents: i64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

/// A decimal amount as cents: `"4.5"` → `450`; `None` unless it is a
/// positive amount with at most two decimals.
pub fn parse_money(text: &str) -> Option<i64> {
    let text = text.trim();
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() && fraction.is_empty() || fraction.len() > 2 {
        return None;
    }
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if !digits(whole) || !digits(fraction) || whole.len() > 9 {
        return None;
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let fraction: i64 = format!("{fraction:0<2}").parse().ok()?;
    Some(whole * 100 + fraction)
}

/// The first eight characters of a key, as timelines show it.
pub fn short_key(key: &str) -> &str {
    &key[..key.len().min(8)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_always_has_two_decimals() {
        assert_eq!(money(450), "4.50");
        assert_eq!(money(5), "0.05");
        assert_eq!(money(10_000_000), "100000.00");
    }

    #[test]
    fn amounts_are_read_with_up_to_two_decimals() {
        assert_eq!(parse_money("4.50"), Some(450));
        assert_eq!(parse_money("4.5"), Some(450));
        assert_eq!(parse_money("12"), Some(1200));
        assert_eq!(parse_money(".5"), Some(50));
        for bad in ["", ".", "4.505", "-1", "1e3", "abc", "4,50"] {
            assert_eq!(parse_money(bad), None, "{bad:?}");
        }
    }
}
