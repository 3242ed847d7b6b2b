//! Whole numbers as JSON Schema counts them: `450` and `450.0` are both the
//! integer 450 (so the OpenAPI document, and a fuzzer reading it, say so
//! too), and the lab reads both. For `#[serde(deserialize_with = …)]`.

use serde::Deserializer;
use serde::de::{Error, Unexpected, Visitor};

/// A whole number, written `450` or `450.0`.
pub fn whole_number<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
    struct WholeNumber;

    impl Visitor<'_> for WholeNumber {
        type Value = i64;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a whole number")
        }

        fn visit_i64<E: Error>(self, value: i64) -> Result<i64, E> {
            Ok(value)
        }

        fn visit_u64<E: Error>(self, value: u64) -> Result<i64, E> {
            i64::try_from(value).map_err(|_| E::invalid_value(Unexpected::Unsigned(value), &self))
        }

        fn visit_f64<E: Error>(self, value: f64) -> Result<i64, E> {
            // Past ±2^63 a float has no fraction but is no i64 either.
            let in_range = (-9.223_372_036_854_775e18..9.223_372_036_854_775e18).contains(&value);
            if value.fract() == 0.0 && in_range {
                #[allow(clippy::cast_possible_truncation, reason = "whole and in range")]
                Ok(value as i64)
            } else {
                Err(E::invalid_value(Unexpected::Float(value), &self))
            }
        }
    }

    deserializer.deserialize_any(WholeNumber)
}

/// A whole number that fits `T` (a `u8` step, a `u32` count).
pub fn whole<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i64>,
{
    let value = whole_number(deserializer)?;
    T::try_from(value)
        .map_err(|_| D::Error::invalid_value(Unexpected::Signed(value), &"a number in range"))
}

/// Like [`whole`], or `null`; use with `#[serde(default)]`.
pub fn optional_whole<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i64>,
{
    struct OrNull<T>(std::marker::PhantomData<T>);

    impl<'de, T: TryFrom<i64>> Visitor<'de> for OrNull<T> {
        type Value = Option<T>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a whole number or null")
        }

        fn visit_none<E: Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_some<D: Deserializer<'de>>(
            self,
            deserializer: D,
        ) -> Result<Self::Value, D::Error> {
            whole(deserializer).map(Some)
        }
    }

    deserializer.deserialize_option(OrNull(std::marker::PhantomData))
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Deserialize, Debug, PartialEq)]
    struct Counts {
        #[serde(deserialize_with = "super::whole")]
        step: u8,
        #[serde(default, deserialize_with = "super::optional_whole")]
        maybe: Option<u32>,
    }

    fn read(json: &str) -> Result<Counts, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn whole_numbers_are_read_written_either_way_and_nothing_else_is() {
        assert_eq!(
            read(r#"{"step": 2.0, "maybe": 7}"#).unwrap(),
            Counts {
                step: 2,
                maybe: Some(7)
            }
        );
        assert_eq!(
            read(r#"{"step": 2, "maybe": null}"#).unwrap(),
            Counts {
                step: 2,
                maybe: None
            }
        );
        assert_eq!(read(r#"{"step": 9}"#).unwrap().maybe, None);
        for bad in [
            r#"{"step": 2.5}"#,
            r#"{"step": 256}"#,
            r#"{"step": -1}"#,
            r#"{"step": "2"}"#,
            r#"{"step": 1, "maybe": -3}"#,
        ] {
            assert!(read(bad).is_err(), "{bad}");
        }
    }
}
