//! How the page writes amounts and keys, and reads the amount a learner types.

use std::fmt;

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;

/// A text of the page in the learner's language, as a table row (a
/// scenario, a form field) holds it: the catalogue message it renders.
pub type Text = fn(Locale) -> String;

/// A number written with the precision a format asks for (`{:.1}`: one
/// decimal, `{:.0}` or none: whole), as `f64` writes it but through
/// whole-number formatting: `f64`'s own `Display` is about 13 KB of the
/// page's wasm (measured), for the diagram's coordinates and the times.
/// Halves round away from zero, and `-0.0` is written `0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Num(pub f64);

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let places = f.precision().unwrap_or(0).min(6);
        let scale = 10_u64.pow(places as u32);
        // Saturates: a NaN or an infinity, which a layout never gives, is written 0 or at most i64::MAX.
        let scaled = (self.0 * scale as f64).round() as i64;
        let magnitude = scaled.unsigned_abs();
        let sign = if scaled < 0 { "-" } else { "" };
        write!(f, "{sign}{}", magnitude / scale)?;
        if places > 0 {
            write!(f, ".{:0places$}", magnitude % scale)?;
        }
        Ok(())
    }
}

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

/// The time of day of a moment in microseconds since 1970, in UTC, to the
/// millisecond: `10:00:00.123 UTC`. (Whole-number arithmetic, where
/// chrono's `format` would bring its format-string parser into the page.)
pub fn clock_time(micros: i64) -> String {
    let ms = micros.div_euclid(1000).rem_euclid(86_400_000);
    format!(
        "{:02}:{:02}:{:02}.{:03} UTC",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

/// A key as a text names it after the word "key": its first eight
/// characters, or "none" for a request that carried no key.
pub fn key_label(key: &str, locale: Locale) -> String {
    if key.is_empty() {
        td_string!(locale, pane.no_key).to_owned()
    } else {
        short_key(key).to_owned()
    }
}

/// Text made safe inside HTML or SVG markup that the page sets as inner
/// HTML: a key is whatever a client sent, an item whatever a learner typed.
pub fn escape(text: &str) -> String {
    let mut safe = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => safe.push_str("&amp;"),
            '<' => safe.push_str("&lt;"),
            '>' => safe.push_str("&gt;"),
            '"' => safe.push_str("&quot;"),
            '\'' => safe.push_str("&#39;"),
            c => safe.push(c),
        }
    }
    safe
}

/// The first eight characters of a key, as timelines show it.
pub fn short_key(key: &str) -> &str {
    &key[..key.len().min(8)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moment_is_written_as_its_time_of_day_in_utc() {
        // 2026-12-02T10:04:05.678901Z
        assert_eq!(clock_time(1_796_205_845_678_901), "10:04:05.678 UTC");
        assert_eq!(clock_time(0), "00:00:00.000 UTC");
        // Before 1970 the day still starts at midnight: 1969-12-31T23:59:59.999Z.
        assert_eq!(clock_time(-1), "23:59:59.999 UTC");
    }

    #[test]
    fn a_number_is_written_with_the_decimals_the_format_asks_for() {
        assert_eq!(format!("{:.1}", Num(12.34)), "12.3");
        assert_eq!(format!("{:.1}", Num(12.35)), "12.4");
        assert_eq!(format!("{:.0}", Num(305.6)), "306");
        assert_eq!(format!("{}", Num(305.4)), "305");
        assert_eq!(format!("{:.2}", Num(7.0)), "7.00");
        assert_eq!(format!("{:.2}", Num(0.05)), "0.05");
        assert_eq!(format!("{:.1}", Num(-4.25)), "-4.3");
        assert_eq!(format!("{:.0}", Num(-0.2)), "0");
        assert_eq!(format!("{:.1}", Num(-0.04)), "0.0");
        assert_eq!(format!("{:.0}", Num(f64::NAN)), "0");
    }

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
