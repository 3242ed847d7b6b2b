//! The order a client asks for and the order a server stores.

use uuid::Uuid;

use crate::Timestamp;

/// The longest item name accepted, in characters.
pub const MAX_ITEM_CHARS: usize = 100;
/// The largest amount accepted: 100 000.00 in cents.
pub const MAX_AMOUNT_CENTS: i64 = 10_000_000;

/// The JSON body of `POST /orders`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NewOrder {
    /// What is being bought: 1–100 characters, not only white space, and
    /// no control characters (U+0000–U+001F, U+007F–U+009F).
    #[cfg_attr(
        feature = "openapi",
        schema(
            min_length = 1,
            max_length = 100,
            // No control character anywhere, and one character at least that is not white space.
            pattern = r"^[^\x00-\x1F\x7F-\x9F]*[^\x00-\x20\x7F-\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000][^\x00-\x1F\x7F-\x9F]*$",
            example = "coffee"
        )
    )]
    pub item: String,
    /// The price in cents, 1–10 000 000.
    #[cfg_attr(
        feature = "openapi",
        schema(minimum = 1, maximum = 10_000_000, example = 450)
    )]
    #[serde(deserialize_with = "crate::whole::whole_number")]
    pub amount_cents: i64,
}

/// Why a well-formed order body cannot be accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidOrder {
    /// `item` is empty or only white space.
    #[error("item must not be empty")]
    EmptyItem,
    /// `item` is longer than [`MAX_ITEM_CHARS`].
    #[error("item is {0} characters long; at most 100 are allowed")]
    ItemTooLong(usize),
    /// `amount_cents` is outside 1–[`MAX_AMOUNT_CENTS`].
    #[error("amount_cents must be between 1 and 10000000, not {0}")]
    AmountOutOfRange(i64),
    /// `item` holds a control character (U+0000–U+001F or U+007F–U+009F)
    /// at this character position (from 1). None belongs in a product's
    /// name, and PostgreSQL's text cannot hold U+0000 at all: refusing them
    /// all keeps both databases taking exactly the same items.
    #[error("item must not contain control characters; it has U+{code:04X} at character {at}")]
    ControlCharacter {
        /// Where, counting characters from 1.
        at: usize,
        /// The character's code point.
        code: u32,
    },
}

impl NewOrder {
    /// Checks the values a JSON schema cannot: lengths and ranges.
    pub fn validate(&self) -> Result<(), InvalidOrder> {
        let chars = self.item.chars().count();
        if self.item.trim().is_empty() {
            return Err(InvalidOrder::EmptyItem);
        }
        if chars > MAX_ITEM_CHARS {
            return Err(InvalidOrder::ItemTooLong(chars));
        }
        if let Some((at, control)) = crate::text::first_control_character(&self.item) {
            return Err(InvalidOrder::ControlCharacter {
                at,
                code: u32::from(control),
            });
        }
        if !(1..=MAX_AMOUNT_CENTS).contains(&self.amount_cents) {
            return Err(InvalidOrder::AmountOutOfRange(self.amount_cents));
        }
        Ok(())
    }
}

/// An order as a server stored it: the body of a `201` and of `GET /orders`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Order {
    /// Assigned by the server when the order is created.
    pub id: Uuid,
    /// What was bought.
    pub item: String,
    /// The price in cents.
    pub amount_cents: i64,
    /// The key of the request that created this order.
    pub idempotency_key: String,
    /// When the order was created (RFC 3339, UTC, to the microsecond).
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(item: &str, amount_cents: i64) -> NewOrder {
        NewOrder {
            item: item.to_owned(),
            amount_cents,
        }
    }

    #[test]
    fn a_coffee_for_four_fifty_is_valid() {
        assert_eq!(order("coffee", 450).validate(), Ok(()));
    }

    #[test]
    fn blank_and_overlong_items_are_rejected() {
        assert_eq!(order("  ", 450).validate(), Err(InvalidOrder::EmptyItem));
        assert_eq!(
            order(&"é".repeat(101), 450).validate(),
            Err(InvalidOrder::ItemTooLong(101))
        );
        assert_eq!(order(&"é".repeat(100), 450).validate(), Ok(()));
    }

    #[test]
    fn control_characters_in_an_item_are_refused_with_where_they_are() {
        assert_eq!(
            order("cof\u{0}fee", 450).validate(),
            Err(InvalidOrder::ControlCharacter { at: 4, code: 0 })
        );
        assert_eq!(
            order("tea\t", 450).validate(),
            Err(InvalidOrder::ControlCharacter { at: 4, code: 9 })
        );
        assert_eq!(
            order("☕\u{85}", 450).validate(),
            Err(InvalidOrder::ControlCharacter { at: 2, code: 0x85 })
        );
        let message = order("a\u{7f}", 450).validate().unwrap_err().to_string();
        assert!(message.contains("U+007F at character 2"), "{message}");
    }

    #[test]
    fn emoji_bidi_marks_and_combining_characters_are_an_item_like_any_other() {
        for item in [
            "☕🍰",
            "\u{200F}قهوة\u{200F}",
            "\u{202E}eeffoc",
            "cafe\u{301}",
            "\u{FEFF}zero width",
            &"🍰".repeat(MAX_ITEM_CHARS),
        ] {
            assert_eq!(order(item, 450).validate(), Ok(()), "{item:?}");
        }
    }

    #[test]
    fn amounts_outside_one_cent_to_one_hundred_thousand_are_rejected() {
        assert_eq!(
            order("x", 0).validate(),
            Err(InvalidOrder::AmountOutOfRange(0))
        );
        assert_eq!(
            order("x", MAX_AMOUNT_CENTS + 1).validate(),
            Err(InvalidOrder::AmountOutOfRange(MAX_AMOUNT_CENTS + 1))
        );
        assert_eq!(order("x", MAX_AMOUNT_CENTS).validate(), Ok(()));
    }

    #[test]
    fn an_amount_written_with_a_zero_fraction_is_the_same_whole_number() {
        let parse = |json: &str| serde_json::from_str::<NewOrder>(json).map(|o| o.amount_cents);
        assert_eq!(
            parse(r#"{"item":"tea","amount_cents":450.0}"#).unwrap(),
            450
        );
        assert_eq!(
            parse(r#"{"item":"tea","amount_cents":4.5e2}"#).unwrap(),
            450
        );
        assert!(parse(r#"{"item":"tea","amount_cents":450.5}"#).is_err());
        assert!(parse(r#"{"item":"tea","amount_cents":1e300}"#).is_err());
        assert!(parse(r#"{"item":"tea","amount_cents":"450"}"#).is_err());
        assert!(parse(r#"{"item":"tea","amount_cents":18446744073709551615}"#).is_err());
    }

    #[test]
    fn an_order_round_trips_through_json_with_an_rfc3339_timestamp() {
        let json = r#"{"id":"3f2a9c1e-0b7d-4c55-9a0e-5d1f7e2b8c44","item":"tea",
            "amount_cents":300,"idempotency_key":"k1","created_at":"2026-12-02T10:00:00Z"}"#;
        let parsed: Order = serde_json::from_str(json).unwrap();
        assert_eq!(parsed.amount_cents, 300);
        let again: Order = serde_json::from_str(&serde_json::to_string(&parsed).unwrap()).unwrap();
        assert_eq!(again, parsed);
    }
}
