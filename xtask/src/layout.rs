//! `cargo xtask check-layout`: two house rules that one command can check.
//!
//! - Inside a crate, files import each other in one direction only: no
//!   file reaches, through its `use`s and paths, a file that reaches it
//!   back. A cycle means two files are one responsibility split badly.
//! - No source file is longer than [`MAX_LINES`] lines (split it by
//!   responsibility first), except those in [`LONG_FILES`], each with its reason.
//!
//! Imports are read with `syn`, so comments and strings never count, and
//! neither does test-only code (`#[cfg(test)]`): a test module may reach
//! anything. Paths through `crate::`, `super::`, `self::` and a module's
//! own child modules count; a name the crate root re-exports (`pub use
//! steps::StepHub` in `lib.rs`) counts as the file that defines it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use self::imports::{collect_rust_files, import_graph};

/// The longest a source file may grow.
pub const MAX_LINES: usize = 400;

/// Files allowed past [`MAX_LINES`], and why one thing needs that length.
pub const LONG_FILES: &[(&str, &str)] = &[];

/// Checks both rules over the workspace at `root`; the error lists every break.
pub fn check(root: &Path) -> Result<String> {
    let mut problems = Vec::new();
    let crate_roots = crate_roots(root)?;
    let mut files = 0;
    for src in &crate_roots {
        let graph = import_graph(src)?;
        files += graph.len();
        for cycle in cycles(&graph) {
            let names: Vec<String> = cycle.iter().map(|file| relative(root, file)).collect();
            problems.push(format!("import cycle: {}", names.join(" → ")));
        }
    }
    for file in source_files(root)? {
        let lines = std::fs::read_to_string(&file)?.lines().count();
        let name = relative(root, &file);
        if lines > MAX_LINES && !LONG_FILES.iter().any(|(long, _)| *long == name) {
            problems.push(format!(
                "{name} has {lines} lines (more than {MAX_LINES}): split it by responsibility"
            ));
        }
    }
    if problems.is_empty() {
        Ok(format!(
            "layout: no import cycles among {files} files in {} crates; no file over {MAX_LINES} lines",
            crate_roots.len()
        ))
    } else {
        anyhow::bail!("layout: {}", problems.join("\n        "))
    }
}

fn relative(root: &Path, file: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string()
}

/// The `src/` folder of every crate in the workspace.
fn crate_roots(root: &Path) -> Result<Vec<PathBuf>> {
    let mut roots = Vec::new();
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .context("reading crates/")?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    candidates.extend([root.join("tests"), root.join("xtask")]);
    candidates.sort();
    for candidate in candidates {
        if candidate.join("Cargo.toml").is_file() && candidate.join("src").is_dir() {
            roots.push(candidate.join("src"));
        }
    }
    Ok(roots)
}

/// Every Rust file the rules cover: sources and tests of every crate.
fn source_files(root: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for src in crate_roots(root)? {
        let krate = src.parent().expect("src has a parent");
        for folder in ["src", "tests"] {
            collect_rust_files(&krate.join(folder), &mut files)?;
        }
    }
    Ok(files)
}

/// Every cycle of `graph`, one per strongly connected group of files, as a
/// path that starts and ends at the same file.
fn cycles(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut in_a_cycle = BTreeSet::new();
    for start in graph.keys() {
        if in_a_cycle.contains(start) {
            continue;
        }
        if let Some(cycle) = path_back(graph, start) {
            in_a_cycle.extend(cycle.iter().cloned());
            found.push(cycle);
        }
    }
    found
}

/// The shortest path from `start` back to itself, if there is one.
fn path_back(
    graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>,
    start: &PathBuf,
) -> Option<Vec<PathBuf>> {
    let mut came_from: BTreeMap<&PathBuf, &PathBuf> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(file) = queue.pop_front() {
        for next in graph.get(file).into_iter().flatten() {
            if next == start {
                // Walk back from the last file to the first, then turn it around.
                let mut between = Vec::new();
                let mut at = file;
                while at != start {
                    between.push(at.clone());
                    at = came_from[at];
                }
                between.reverse();
                let mut path = vec![start.clone()];
                path.extend(between);
                path.push(start.clone());
                return Some(path);
            }
            if !came_from.contains_key(next) {
                came_from.insert(next, file);
                queue.push_back(next);
            }
        }
    }
    None
}

pub(crate) mod imports;
#[cfg(test)]
mod tests;
