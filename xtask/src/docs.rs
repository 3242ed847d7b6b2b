//! `cargo xtask check-docs`: the documents name every design the lab has.
//!
//! The designs are the server crates (`crates/NAME-server`): adding one
//! adds a design. Then each README must link the new design's handler, and
//! no document may still count the designs as fewer ("four order
//! servers", "三台服务器") — the check fails until they are updated. And
//! every relative link in the documents leads to a file that exists (the
//! README's sections live in `docs/` now, one link away).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The documents that list every design, each with a link to its handler.
const LISTS: [&str; 2] = ["README.md", "README.zh-CN.md"];

/// Number words as the documents write counts of designs, from three up
/// (a pane shows two servers, which is not a count of designs).
const ENGLISH: [(&str, usize); 8] = [
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
];
const CHINESE: [(char, usize); 8] = [
    ('三', 3),
    ('四', 4),
    ('五', 5),
    ('六', 6),
    ('七', 7),
    ('八', 8),
    ('九', 9),
    ('十', 10),
];

/// Checks the documents under `root`; the error lists every problem.
pub fn check(root: &Path) -> Result<String> {
    let designs = designs(root)?;
    let mut problems = Vec::new();
    for list in LISTS {
        let text = read(&root.join(list))?;
        for design in &designs {
            let handler = format!("crates/{design}-server/src/handler.rs");
            if !text.contains(&handler) {
                problems.push(format!(
                    "{list} does not link the {design} design's {handler}"
                ));
            }
        }
    }
    let mut documents: Vec<PathBuf> = LISTS.iter().map(|list| root.join(list)).collect();
    documents.extend(markdown_in(&root.join("docs"))?);
    for document in &documents {
        let text = read(document)?;
        let name = document.strip_prefix(root).unwrap_or(document).display();
        let folder = document.parent().unwrap_or(root);
        for target in relative_links(&text) {
            if !folder.join(target).exists() {
                problems.push(format!("{name}: the link to {target} leads nowhere"));
            }
        }
        for (line_number, line) in text.lines().enumerate() {
            for claimed in counts_of_designs(line) {
                if claimed != designs.len() {
                    problems.push(format!(
                        "{name}:{}: says {claimed} designs, the lab has {}: {}",
                        line_number + 1,
                        designs.len(),
                        line.trim()
                    ));
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(format!(
            "docs: {} designs ({}), each linked from {}; no document counts them otherwise ({} read)",
            designs.len(),
            designs.join(", "),
            LISTS.join(" and "),
            documents.len()
        ))
    } else {
        anyhow::bail!("docs: {}", problems.join("\n        "))
    }
}

/// The lab's designs: the `NAME` of every `crates/NAME-server`, sorted.
fn designs(root: &Path) -> Result<Vec<String>> {
    let crates = root.join("crates");
    let mut designs: Vec<String> = std::fs::read_dir(&crates)
        .with_context(|| format!("reading {}", crates.display()))?
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name.strip_suffix("-server").map(str::to_owned)
        })
        .collect();
    designs.sort();
    Ok(designs)
}

fn markdown_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    Ok(files)
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

/// The files a Markdown text links to by a relative path (`](docs/x.md#y)`
/// gives `docs/x.md`), leaving out web addresses and anchors in the page.
fn relative_links(text: &str) -> Vec<&str> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(|target| target.split('#').next().unwrap_or_default())
        .filter(|target| {
            !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:")
        })
        .collect()
}

/// Every count of the lab's designs `line` states: "five designs", "five
/// order servers", "the five servers", "五台订单服务器", "五种设计".
fn counts_of_designs(line: &str) -> Vec<usize> {
    let lower = line.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let mut counts = Vec::new();
    for (at, word) in words.iter().enumerate() {
        let Some(count) = ENGLISH
            .iter()
            .find(|(name, _)| name == word)
            .map(|(_, n)| *n)
            .or_else(|| word.parse().ok().filter(|n| (3..=10).contains(n)))
        else {
            continue;
        };
        let next = words.get(at + 1).copied();
        let after = words.get(at + 2).copied();
        if matches!(next, Some("designs" | "servers"))
            || (next == Some("order") && after == Some("servers"))
        {
            counts.push(count);
        }
    }
    for (at, c) in line.char_indices() {
        let Some(count) = CHINESE.iter().find(|(n, _)| *n == c).map(|(_, n)| *n) else {
            continue;
        };
        let rest = &line[at + c.len_utf8()..];
        if ["台订单服务器", "台服务器", "种设计"]
            .iter()
            .any(|unit| rest.starts_with(unit))
        {
            counts.push(count);
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_links_are_found_and_web_addresses_and_anchors_are_not() {
        let text = "[a](docs/a.md#x) [b](https://example.com) [c](#here) ![d](d.png)";
        assert_eq!(relative_links(text), ["docs/a.md", "d.png"]);
    }

    #[test]
    fn counts_of_designs_are_found_in_english_and_chinese_and_two_panes_are_not_one() {
        assert_eq!(
            counts_of_designs("Five order servers run side by side"),
            [5]
        );
        assert_eq!(counts_of_designs("the three servers and the page"), [3]);
        assert_eq!(counts_of_designs("## The five designs"), [5]);
        assert_eq!(counts_of_designs("五台订单服务器共用同一个数据库"), [5]);
        assert_eq!(counts_of_designs("四种设计"), [4]);
        assert!(counts_of_designs("a page sends two servers the same requests").is_empty());
        assert!(counts_of_designs("three statements: claim, order, answer").is_empty());
        assert!(counts_of_designs("五笔订单").is_empty());
    }
}
