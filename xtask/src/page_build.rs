//! Building the page as the lab serves it: Trunk's two bundles (the
//! learner's page and the viewer), their JS minified by terser, every file
//! compressed beside itself (`.br`, `.gz`), and what a browser receives,
//! printed against the page's budget.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::shell::{Checked, command, say};
use crate::tools::terser;

/// Builds the learner's page into `dist/` and the viewer (saved runs and
/// the teacher's view) into `dist/viewer/`, writes each file compressed
/// beside it (`.br`, `.gz`: the lab sends those, so it compresses nothing
/// per request), and prints what a browser receives.
pub fn build_page(root: &Path) -> Result<()> {
    // Trunk runs cargo offline (see Trunk.toml), so fetch the crates first.
    command("cargo").args(["fetch", "--quiet"]).checked()?;
    // The page first: Trunk empties its dist folder, which holds the viewer's.
    command("trunk")
        .args(["build", "--release"])
        .env("TRUNK_SKIP_VERSION_CHECK", "true")
        .checked()?;
    command("trunk")
        .args([
            "build",
            "--release",
            "--dist",
            "dist/viewer",
            "--public-url",
            "/viewer/",
        ])
        .arg("crates/web/viewer.html")
        .env("TRUNK_SKIP_VERSION_CHECK", "true")
        .checked()?;
    let dist = root.join("dist");
    for dir in [dist.clone(), dist.join("viewer")] {
        minify_scripts(root, &dir)?;
        compress_beside(&dir)?;
    }
    report_page_weight(&dist, "Learner's page", Some(BUDGET_KB))?;
    report_page_weight(
        &dist.join("viewer"),
        "Viewer (saved runs, the teacher's view, the scheduler)",
        None,
    )
}

/// Minifies each JS file in `dir` with terser, in place, and updates the
/// integrity hash Trunk wrote for it into `dir/index.html` (the browser
/// refuses a preloaded module whose hash does not match).
fn minify_scripts(root: &Path, dir: &Path) -> Result<()> {
    let index_path = dir.join("index.html");
    let mut index = std::fs::read_to_string(&index_path)?;
    for path in files_in(dir)? {
        if path.extension().is_none_or(|e| e != "js") {
            continue;
        }
        let before = std::fs::read(&path)?;
        command(terser(root))
            .arg(&path)
            .args(["--module", "--compress", "--mangle", "--output"])
            .arg(&path)
            .checked()?;
        let after = std::fs::read(&path)?;
        let (old, new) = (integrity_of(&before), integrity_of(&after));
        anyhow::ensure!(
            index.contains(&old),
            "{} does not name {} by its integrity hash",
            index_path.display(),
            path.display()
        );
        index = index.replace(&old, &new);
    }
    std::fs::write(&index_path, index)?;
    Ok(())
}

/// A subresource integrity value, as Trunk writes it: `sha384-…`.
fn integrity_of(bytes: &[u8]) -> String {
    use base64::prelude::{BASE64_STANDARD, Engine};
    use sha2::Digest;
    format!(
        "sha384-{}",
        BASE64_STANDARD.encode(sha2::Sha384::digest(bytes))
    )
}

/// What a first visit may make a browser download, brotli-compressed as
/// the lab sends it: the page, its wasm, JS and CSS together.
const BUDGET_KB: f64 = 250.0;

/// The kinds of file worth compressing (wasm and text).
const COMPRESSED_KINDS: [&str; 5] = ["html", "js", "wasm", "css", "svg"];

/// Writes `NAME.br` (brotli, best) and `NAME.gz` (gzip, best) beside each
/// file of a compressible kind in `dir` (not its subfolders).
fn compress_beside(dir: &Path) -> Result<()> {
    for path in files_in(dir)? {
        let kind = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        if !COMPRESSED_KINDS.contains(&kind) {
            continue;
        }
        let bytes = std::fs::read(&path)?;
        let with_suffix = |suffix: &str| {
            let mut name = path.clone().into_os_string();
            name.push(suffix);
            PathBuf::from(name)
        };
        std::fs::write(with_suffix(".br"), brotli_compressed(&bytes)?)?;
        std::fs::write(with_suffix(".gz"), gzip_compressed(&bytes)?)?;
    }
    Ok(())
}

fn files_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    Ok(files)
}

/// Prints what a browser receives for the page in `dir` on a first visit:
/// each kind's bytes as built and as sent (brotli; gzip in brackets), and,
/// against `budget_kb`, the total. A number to read: it never fails the build.
fn report_page_weight(dir: &Path, what: &str, budget_kb: Option<f64>) -> Result<()> {
    let mut parts = Vec::new();
    let (mut raw_total, mut br_total, mut gz_total) = (0, 0, 0);
    for kind in ["html", "wasm", "js", "css"] {
        let (mut raw, mut br, mut gz) = (0, 0, 0);
        for path in files_in(dir)? {
            if path.extension().is_some_and(|e| e == kind) {
                let size = |suffix: &str| -> Result<u64> {
                    let mut name = path.clone().into_os_string();
                    name.push(suffix);
                    Ok(std::fs::metadata(PathBuf::from(name))?.len())
                };
                raw += size("")?;
                br += size(".br")?;
                gz += size(".gz")?;
            }
        }
        anyhow::ensure!(
            kind != "wasm" || raw > 0,
            "Trunk produced no .wasm file in {}",
            dir.display()
        );
        parts.push(format!("{kind} {:.1} KB → {:.1} KB", kb(raw), kb(br)));
        raw_total += raw;
        br_total += br;
        gz_total += gz;
    }
    let against_budget = match budget_kb {
        Some(budget) if kb(br_total) <= budget => {
            format!(
                " ({:.1} KB under the {budget:.0} KB budget)",
                budget - kb(br_total)
            )
        }
        Some(budget) => format!(
            " (OVER the {budget:.0} KB budget by {:.1} KB)",
            kb(br_total) - budget
        ),
        None => String::new(),
    };
    say(&format!(
        "{what}: a first visit receives {:.1} KB with brotli ({:.1} KB with gzip, {:.1} KB uncompressed){against_budget}; {}",
        kb(br_total),
        kb(gz_total),
        kb(raw_total),
        parts.join(", ")
    ));
    Ok(())
}

/// `data` compressed as `brotli -q 11` does: what the lab sends a browser
/// that accepts `br` (every current one).
fn brotli_compressed(data: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: 22,
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &data[..], &mut out, &params)?;
    Ok(out)
}

/// `data` compressed as `gzip -9` does, for browsers without brotli.
fn gzip_compressed(data: &[u8]) -> Result<Vec<u8>> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(data)?;
    Ok(encoder.finish()?)
}

fn kb(bytes: u64) -> f64 {
    bytes as f64 / 1000.0
}
