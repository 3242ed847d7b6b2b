//! Turns `locales/*.json` into the `i18n` module (in `OUT_DIR`) that
//! `src/lib.rs` includes: one Rust value per message, checked at compile time.
//!
//! This is what `leptos_i18n_build` does, done with the two crates it wraps
//! (the parser and the code generator, the same ones `leptos_i18n`'s macros
//! use): `leptos_i18n_build` also brings ICU's data exporter, with an HTTP
//! client and a wasm runtime, into every build, for ICU data we do not ask for.

use std::path::PathBuf;

use leptos_i18n_parser::parse_locales::options::{Config, ParseOptions};
use leptos_i18n_parser::parse_locales::parse_locales;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo::rerun-if-changed=build.rs");
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    // `interpolate_display`: messages with placeholders can also be rendered
    // as plain strings (`td_string!`), which lab-client's verdicts need.
    let cfg = Config::new("en")?
        .add_locale("zh-CN")?
        .parse_options(ParseOptions::default().interpolate_display(true));
    let parsed = parse_locales(Some(manifest_dir), cfg)?;
    for file in parsed.tracked_files.iter().flatten() {
        println!("cargo::rerun-if-changed={file}");
    }
    // The parser's warnings (a missing or surplus key) are errors here: a
    // language would otherwise fall back to English without a word.
    let (errors, warnings) = parsed.diag.borrow();
    let problems: Vec<String> = errors
        .iter()
        .map(ToString::to_string)
        .chain(warnings.iter().map(ToString::to_string))
        .collect();
    if !problems.is_empty() {
        return Err(format!("the catalogue has problems:\n{}", problems.join("\n")).into());
    }
    drop((errors, warnings));
    // Generated code: not ours to lint, and it uses leptos_i18n's ranges,
    // deprecated in 0.6 (see lib.rs for why we keep them).
    let allow: proc_macro2::TokenStream = "#![allow(deprecated, clippy::all)]".parse()?;
    let code = leptos_i18n_codegen::gen_code(&parsed, None, false, Some(&allow), true)?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?).join("i18n.rs");
    std::fs::write(out, code.to_string())?;
    Ok(())
}
