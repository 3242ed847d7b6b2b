//! A moment on the wire: RFC 3339 in UTC, to the microsecond
//! (`2026-12-02T10:00:00.123456Z`), as the servers store it.
//!
//! The lab's own type rather than chrono's `DateTime<Utc>`, so that the page
//! reads an order's time without chrono's general date parser and formatter:
//! 16 KB of the page's wasm (measured with twiggy) for one field. The
//! servers, which do date arithmetic, convert to and from chrono (feature
//! `chrono`). What is written is what chrono wrote before: no fraction for
//! whole seconds, three digits for whole milliseconds, else six.

use std::fmt;

/// Microseconds in a day.
const DAY_US: i64 = 86_400_000_000;

/// A moment in microseconds since 1970-01-01T00:00:00Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    micros: i64,
}

impl Timestamp {
    /// The moment `micros` microseconds after 1970-01-01T00:00:00Z.
    pub const fn from_micros(micros: i64) -> Self {
        Self { micros }
    }

    /// Microseconds since 1970-01-01T00:00:00Z.
    pub const fn micros(self) -> i64 {
        self.micros
    }

    /// Reads RFC 3339: a date, `T` (or `t` or a space), a time with an
    /// optional fraction, and `Z` or an offset such as `+08:00`. Digits
    /// past the microsecond are dropped.
    pub fn parse(text: &str) -> Result<Self, InvalidTimestamp> {
        let bytes = text.as_bytes();
        let number = |from: usize, len: usize| -> Result<i64, InvalidTimestamp> {
            let digits = bytes.get(from..from + len).ok_or(InvalidTimestamp)?;
            digits.iter().try_fold(0_i64, |value, digit| match digit {
                b'0'..=b'9' => Ok(value * 10 + i64::from(digit - b'0')),
                _ => Err(InvalidTimestamp),
            })
        };
        let expect = |at: usize, allowed: &[u8]| match bytes.get(at) {
            Some(found) if allowed.contains(found) => Ok(()),
            _ => Err(InvalidTimestamp),
        };
        let year = number(0, 4)?;
        expect(4, b"-")?;
        let month = number(5, 2)?;
        expect(7, b"-")?;
        let day = number(8, 2)?;
        expect(10, b"Tt ")?;
        let hour = number(11, 2)?;
        expect(13, b":")?;
        let minute = number(14, 2)?;
        expect(16, b":")?;
        let second = number(17, 2)?;
        let mut at = 19;
        let mut micros = 0;
        if bytes.get(at) == Some(&b'.') {
            at += 1;
            let start = at;
            while bytes.get(at).is_some_and(u8::is_ascii_digit) {
                if at - start < 6 {
                    micros = micros * 10 + i64::from(bytes[at] - b'0');
                }
                at += 1;
            }
            if at == start {
                return Err(InvalidTimestamp);
            }
            for _ in (at - start)..6 {
                micros *= 10;
            }
        }
        let offset_minutes = match bytes.get(at) {
            Some(b'Z' | b'z') if at + 1 == bytes.len() => 0,
            Some(sign @ (b'+' | b'-')) if at + 6 == bytes.len() => {
                expect(at + 3, b":")?;
                let minutes = number(at + 1, 2)? * 60 + number(at + 4, 2)?;
                if *sign == b'-' { -minutes } else { minutes }
            }
            _ => return Err(InvalidTimestamp),
        };
        let valid = (1..=12).contains(&month)
            && (1..=days_in_month(year, month)).contains(&day)
            && hour < 24
            && minute < 60
            // 60: a leap second, which RFC 3339 allows; it counts as the next.
            && second <= 60;
        if !valid {
            return Err(InvalidTimestamp);
        }
        let seconds =
            days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
                - offset_minutes * 60;
        Ok(Self::from_micros(seconds * 1_000_000 + micros))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.micros.div_euclid(DAY_US);
        let of_day = self.micros.rem_euclid(DAY_US);
        let (year, month, day) = civil_from_days(days);
        let seconds = of_day / 1_000_000;
        let fraction = of_day % 1_000_000;
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
            seconds / 3600,
            seconds / 60 % 60,
            seconds % 60
        )?;
        if fraction == 0 {
        } else if fraction % 1000 == 0 {
            write!(f, ".{:03}", fraction / 1000)?;
        } else {
            write!(f, ".{fraction:06}")?;
        }
        f.write_str("Z")
    }
}

/// A text that is not an RFC 3339 moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("not an RFC 3339 date and time such as 2026-12-02T10:00:00Z")]
pub struct InvalidTimestamp;

impl serde::Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Timestamp {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Timestamp;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an RFC 3339 date and time")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Timestamp, E> {
                Timestamp::parse(text).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

#[cfg(feature = "chrono")]
impl From<chrono::DateTime<chrono::Utc>> for Timestamp {
    fn from(moment: chrono::DateTime<chrono::Utc>) -> Self {
        Self::from_micros(moment.timestamp_micros())
    }
}

#[cfg(feature = "chrono")]
impl From<Timestamp> for chrono::DateTime<chrono::Utc> {
    fn from(moment: Timestamp) -> Self {
        // Every i64 of microseconds is within chrono's range.
        chrono::DateTime::from_timestamp_micros(moment.micros).unwrap_or_default()
    }
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a date of the proleptic Gregorian calendar
/// (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date `days` after 1970-01-01 (Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> i64 {
        Timestamp::parse(text).unwrap().micros()
    }

    #[test]
    fn moments_are_written_as_chrono_wrote_them() {
        for (micros, text) in [
            (0, "1970-01-01T00:00:00Z"),
            (1_796_205_845_000_000, "2026-12-02T10:04:05Z"),
            (1_796_205_845_678_000, "2026-12-02T10:04:05.678Z"),
            (1_796_205_845_678_901, "2026-12-02T10:04:05.678901Z"),
            (951_782_400_000_001, "2000-02-29T00:00:00.000001Z"),
            (-1, "1969-12-31T23:59:59.999999Z"),
        ] {
            assert_eq!(Timestamp::from_micros(micros).to_string(), text);
            assert_eq!(at(text), micros, "{text}");
        }
    }

    #[test]
    fn offsets_fractions_and_lower_case_are_read() {
        let utc = at("2026-12-02T10:04:05.678901Z");
        assert_eq!(at("2026-12-02T18:04:05.678901+08:00"), utc);
        assert_eq!(at("2026-12-02t05:34:05.678901-04:30"), utc);
        assert_eq!(at("2026-12-02 10:04:05.678901z"), utc);
        assert_eq!(
            at("2026-12-02T10:04:05.678901999Z"),
            utc,
            "nanoseconds dropped"
        );
        assert_eq!(
            at("2026-12-02T10:04:05.5Z"),
            at("2026-12-02T10:04:05Z") + 500_000
        );
    }

    #[test]
    fn what_is_not_a_moment_is_refused() {
        for bad in [
            "",
            "2026-12-02",
            "2026-12-02T10:04:05",
            "2026-13-02T10:04:05Z",
            "2026-02-29T10:04:05Z",
            "2026-12-02T24:00:00Z",
            "2026-12-02T10:04:05.Z",
            "2026-12-02T10:04:05Zjunk",
            "2026-12-02T10:04:05+0800",
            "２026-12-02T10:04:05Z",
        ] {
            assert_eq!(Timestamp::parse(bad), Err(InvalidTimestamp), "{bad:?}");
        }
    }

    #[test]
    fn a_timestamp_round_trips_through_json() {
        let moment = Timestamp::from_micros(1_796_205_845_678_901);
        let json = serde_json::to_string(&moment).unwrap();
        assert_eq!(json, r#""2026-12-02T10:04:05.678901Z""#);
        assert_eq!(serde_json::from_str::<Timestamp>(&json).unwrap(), moment);
        assert!(serde_json::from_str::<Timestamp>(r#""yesterday""#).is_err());
    }

    #[cfg(feature = "chrono")]
    #[test]
    fn chrono_and_the_wire_agree_on_every_moment_tried() {
        use chrono::{DateTime, SecondsFormat, Utc};
        for micros in [
            0,
            1,
            -1,
            1_796_205_845_678_901,
            253_402_300_799_999_999,
            -62_135_596_800_000_000,
        ] {
            let chrono = DateTime::<Utc>::from_timestamp_micros(micros).unwrap();
            let ours = Timestamp::from(chrono);
            assert_eq!(ours.micros(), micros);
            assert_eq!(DateTime::<Utc>::from(ours), chrono);
            assert_eq!(
                ours.to_string(),
                chrono.to_rfc3339_opts(SecondsFormat::AutoSi, true)
            );
            assert_eq!(at(&chrono.to_rfc3339()), micros);
        }
    }
}
