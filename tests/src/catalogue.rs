//! The page's message catalogue as the browser tests read it: which words
//! only the English catalogue has, so a Chinese page that shows one has
//! left a text untranslated.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;

/// Every text of the locale file `name` (`en`, `zh-CN`), placeholders
/// (`{{ count }}`) and component tags (`<strong>`) taken out.
pub fn texts(name: &str) -> Vec<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/lab-i18n/locales")
        .join(format!("{name}.json"));
    let json: Value = serde_json::from_str(
        &std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .expect("a locale file is JSON");
    let mut found = Vec::new();
    collect(&json, &mut found);
    found
        .into_iter()
        .map(|text| without_placeholders(&text))
        .collect()
}

fn collect(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::String(text) => found.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| collect(item, found)),
        Value::Object(entries) => entries.values().for_each(|item| collect(item, found)),
        _ => {}
    }
}

fn without_placeholders(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    loop {
        let next = [rest.find("{{"), rest.find('<')]
            .into_iter()
            .flatten()
            .min();
        let Some(start) = next else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..start]);
        let close = if rest[start..].starts_with("{{") {
            "}}"
        } else {
            ">"
        };
        match rest[start..].find(close) {
            Some(end) => {
                out.push(' ');
                rest = &rest[start + end + close.len()..];
            }
            None => {
                out.push_str(&rest[start..]);
                return out;
            }
        }
    }
}

/// The words of `text`: runs of ASCII letters, digits, `-` and `'`,
/// lowercased, keeping only those made of letters (a key such as
/// `3f2a9c1e`, a number or a time is not a word).
pub fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '\''))
        .map(|token| token.trim_matches(['-', '\'']).to_ascii_lowercase())
        .filter(|token| {
            token.chars().filter(char::is_ascii_alphabetic).count() >= 2
                && token
                    .chars()
                    .all(|c| c.is_ascii_alphabetic() || c == '-' || c == '\'')
        })
        .collect()
}

/// Words the English catalogue uses and the Chinese one does not: product
/// and protocol names (Idempotency-Key, UNIQUE, POST, ms) appear in both
/// and are not on this list.
pub fn english_only_words() -> BTreeSet<String> {
    let english: BTreeSet<String> = texts("en").iter().flat_map(|t| words(t)).collect();
    let chinese: BTreeSet<String> = texts("zh-CN").iter().flat_map(|t| words(t)).collect();
    english.difference(&chinese).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_numbers_and_names_in_both_catalogues_are_not_english_words() {
        let only = english_only_words();
        for word in ["order", "retry", "key", "the", "naive"] {
            assert!(only.contains(word), "{word}");
        }
        for kept in ["idempotency-key", "unique", "ms", "english"] {
            assert!(!only.contains(kept), "{kept} is in both catalogues");
        }
        assert!(
            words("键 3f2a9c1e · 0–500 ms · lab-1a2b3c4d")
                .iter()
                .eq(["ms"])
        );
    }

    #[test]
    fn placeholders_and_components_are_not_words_of_the_text() {
        let text = without_placeholders("<strong>Naive</strong> {{ count }} orders");
        assert_eq!(
            words(&text).into_iter().collect::<Vec<_>>(),
            ["naive", "orders"]
        );
        assert!(
            !text.contains("strong") && !text.contains("count"),
            "{text}"
        );
    }
}
