//! `cargo xtask check-catalogue`: every word of the page is in the message
//! catalogue, and every language has every message.
//!
//! - Each locale file (`crates/lab-i18n/locales/*.json`) holds the same
//!   messages as the others, with the same `{{ placeholders }}` and
//!   `<components>`: a message missing in one language, or one that drops a
//!   number the other shows, fails. A counted message (a list of forms,
//!   `["u64", ["one request", 1], ["{{ count }} requests"]]`) may have as
//!   many forms as its language needs: Chinese has one. (The catalogue's
//!   build script also refuses a missing key; leptos_i18n alone would only
//!   warn and fall back to English.)
//! - No view holds text of its own, and no string in the page's code reads
//!   as words (see [`inline`]).
//! - The heading and introduction `index.html` shows while the app loads
//!   are the catalogue's (see [`shell`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::Value;

mod inline;
mod shell;
#[cfg(test)]
mod tests;

/// Where the catalogue lives.
const LOCALES_DIR: &str = "crates/lab-i18n/locales";

/// The code whose strings are shown to learners.
const PAGE_SOURCES: [&str; 2] = ["crates/web/src", "crates/lab-client/src"];

/// What a message is, as far as the languages must agree on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// Whether the text depends on a count (a list of forms).
    pub counted: bool,
    /// The `{{ name }}`s and `<component>`s it uses, over all its forms.
    pub placeholders: BTreeSet<String>,
}

/// Checks the catalogue and the page's code under `root`; the error lists every problem.
pub fn check(root: &Path) -> Result<String> {
    let mut catalogues = BTreeMap::new();
    let mut texts = Vec::new();
    let dir = root.join(LOCALES_DIR);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    for file in files {
        let name = file
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&file)?;
        let json: Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not valid JSON", file.display()))?;
        catalogues.insert(name.clone(), shapes(&json)?);
        texts.push((name, json));
    }
    let mut problems = compare(&catalogues);
    problems.extend(shell::check(root, &texts)?);
    let mut scanned = 0;
    for sources in PAGE_SOURCES {
        let (files, found) = inline::scan(&root.join(sources))?;
        scanned += files;
        problems.extend(found.into_iter().map(|found| {
            let file = found
                .file
                .strip_prefix(root)
                .unwrap_or(&found.file)
                .display()
                .to_string();
            format!("{file}:{}: {}", found.line, found.what)
        }));
    }
    if problems.is_empty() {
        let keys = catalogues.values().next().map_or(0, BTreeMap::len);
        Ok(format!(
            "catalogue: {keys} messages in each of {} ({}); no inline text in {scanned} page files",
            catalogues.len(),
            catalogues.keys().cloned().collect::<Vec<_>>().join(", ")
        ))
    } else {
        anyhow::bail!("catalogue: {}", problems.join("\n        "))
    }
}

/// Every message of one locale file by its dotted key (`page.title`).
pub fn shapes(json: &Value) -> Result<BTreeMap<String, Shape>> {
    let mut found = BTreeMap::new();
    walk(json, "", &mut found)?;
    Ok(found)
}

fn walk(value: &Value, prefix: &str, found: &mut BTreeMap<String, Shape>) -> Result<()> {
    match value {
        Value::Object(entries) => {
            for (key, value) in entries {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                walk(value, &path, found)?;
            }
        }
        Value::String(text) => {
            found.insert(
                prefix.to_owned(),
                Shape {
                    counted: false,
                    placeholders: placeholders(text),
                },
            );
        }
        Value::Array(forms) => {
            // An optional number type ("u64"), then [text, counts…] per form.
            let mut all = BTreeSet::new();
            for form in forms {
                match form {
                    Value::String(_) => {}
                    Value::Array(parts) => match parts.first() {
                        Some(Value::String(text)) => all.extend(placeholders(text)),
                        _ => anyhow::bail!(
                            "{prefix}: each form of a counted message starts with its text"
                        ),
                    },
                    _ => anyhow::bail!("{prefix}: a counted message is a list of forms"),
                }
            }
            found.insert(
                prefix.to_owned(),
                Shape {
                    counted: true,
                    placeholders: all,
                },
            );
        }
        _ => anyhow::bail!(
            "{prefix}: a message is a text, a list of counted forms or a group of messages"
        ),
    }
    Ok(())
}

/// The `{{ name }}`s and `<component>`s of one text.
pub fn placeholders(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        found.insert(after[..end].trim().to_owned());
        rest = &after[end + 2..];
    }
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('>') else { break };
        let tag = after[..end].trim_start_matches('/').trim();
        if !tag.is_empty() && tag.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            found.insert(format!("<{tag}>"));
        }
        rest = &after[end + 1..];
    }
    found
}

/// Every difference between the catalogues, one line each.
pub fn compare(catalogues: &BTreeMap<String, BTreeMap<String, Shape>>) -> Vec<String> {
    let mut problems = Vec::new();
    let every_key: BTreeSet<&String> = catalogues.values().flat_map(BTreeMap::keys).collect();
    for key in every_key {
        let mut shapes: Vec<(&String, &Shape)> = Vec::new();
        for (locale, catalogue) in catalogues {
            match catalogue.get(key) {
                Some(shape) => shapes.push((locale, shape)),
                None => problems.push(format!("{locale} has no message {key:?}")),
            }
        }
        if let Some(((first, expected), others)) = shapes.split_first() {
            for (locale, shape) in others {
                if shape.counted != expected.counted {
                    let (counted, plain) = if expected.counted {
                        (first, locale)
                    } else {
                        (locale, first)
                    };
                    problems.push(format!(
                        "{key:?} depends on a count in {counted} but not in {plain}"
                    ));
                    continue;
                }
                // A counted message's own number may be written ("3 requests")
                // in one language and implied ("one request") in another.
                let counted = expected.counted || shape.counted;
                let without_count = |placeholders: &BTreeSet<String>| {
                    let mut placeholders = placeholders.clone();
                    if counted {
                        placeholders.remove("count");
                    }
                    placeholders
                };
                if without_count(&shape.placeholders) != without_count(&expected.placeholders) {
                    problems.push(format!(
                        "{key:?} uses {:?} in {first} but {:?} in {locale}",
                        expected.placeholders, shape.placeholders
                    ));
                }
            }
        }
    }
    problems
}
