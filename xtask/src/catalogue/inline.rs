//! Text written into the page's code instead of the catalogue.
//!
//! Read with `syn`, so comments and docs never count, and neither does
//! test-only code (`#[cfg(test)]`, `tests.rs`):
//!
//! - in a `view!`, a string literal that is an element's text, or the value
//!   of an attribute people read or hear ([`READ_ATTRIBUTES`]);
//! - anywhere else, a string literal that reads as words: two words of
//!   letters in a row, or any Chinese. Messages for programmers
//!   (`expect`, `panic!`, `assert!` …) are not shown to learners and are left alone.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::visit::Visit;

use crate::layout::imports::{collect_rust_files, is_test_only};

/// Attributes whose value a learner reads or a screen reader says.
pub const READ_ATTRIBUTES: [&str; 7] = [
    "title",
    "alt",
    "placeholder",
    "aria-label",
    "aria-description",
    "aria-valuetext",
    "aria-roledescription",
];

/// Macros whose strings are for programmers.
const PROGRAMMER_MACROS: [&str; 9] = [
    "panic",
    "unreachable",
    "todo",
    "unimplemented",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
];

/// One inline text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub file: PathBuf,
    pub line: usize,
    pub what: String,
}

/// Scans every non-test `.rs` file under `dir`; returns how many files it read and what it found.
pub fn scan(dir: &Path) -> Result<(usize, Vec<Found>)> {
    let mut files = Vec::new();
    collect_rust_files(dir, &mut files)?;
    files.retain(|file| file.file_name().is_some_and(|name| name != "tests.rs"));
    let mut found = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file)?;
        found.extend(
            scan_source(&source)
                .with_context(|| format!("parsing {}", file.display()))?
                .into_iter()
                .map(|(line, what)| Found {
                    file: file.clone(),
                    line,
                    what,
                }),
        );
    }
    Ok((files.len(), found))
}

/// The inline texts of one file, as (line, description).
pub fn scan_source(source: &str) -> Result<Vec<(usize, String)>> {
    let file = syn::parse_file(source)?;
    let mut scanner = Scanner::default();
    scanner.visit_file(&file);
    Ok(scanner.found)
}

#[derive(Default)]
struct Scanner {
    found: Vec<(usize, String)>,
}

impl Scanner {
    fn report(&mut self, literal: &syn::LitStr, what: &str) {
        self.found.push((
            literal.span().start().line,
            format!("{what} {:?}: put it in the catalogue", literal.value()),
        ));
    }

    fn check_words(&mut self, literal: &syn::LitStr) {
        if reads_as_words(&literal.value()) {
            self.report(literal, "text");
        }
    }

    /// A `view!`'s markup: text nodes and read attributes are inline text;
    /// `{…}` blocks and attribute expressions are Rust, scanned as such.
    fn scan_view(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        for (at, token) in tokens.iter().enumerate() {
            match token {
                TokenTree::Literal(literal) => {
                    let syn::Lit::Str(literal) = syn::Lit::new(literal.clone()) else {
                        continue;
                    };
                    match attribute_before(&tokens[..at]) {
                        Some(name) if READ_ATTRIBUTES.contains(&name.as_str()) => {
                            self.report(&literal, &format!("the {name} attribute"))
                        }
                        Some(_) => {}
                        None if literal.value().chars().any(char::is_alphabetic) => {
                            self.report(&literal, "element text")
                        }
                        None => {}
                    }
                }
                TokenTree::Group(group) if group.delimiter() == Delimiter::Brace => {
                    self.scan_rust(group.stream())
                }
                TokenTree::Group(group) => self.scan_rust(group.stream()),
                _ => {}
            }
        }
    }

    /// Rust inside a view or a macro: parsed as a block where it is one,
    /// otherwise its literals are checked one by one.
    fn scan_rust(&mut self, tokens: TokenStream) {
        let wrapped: TokenStream =
            TokenTree::Group(proc_macro2::Group::new(Delimiter::Brace, tokens.clone())).into();
        if let Ok(block) = syn::parse2::<syn::Block>(wrapped) {
            self.visit_block(&block);
            return;
        }
        self.scan_tokens(tokens);
    }

    fn scan_tokens(&mut self, tokens: TokenStream) {
        for token in tokens {
            match token {
                TokenTree::Literal(literal) => {
                    if let syn::Lit::Str(literal) = syn::Lit::new(literal) {
                        self.check_words(&literal);
                    }
                }
                TokenTree::Group(group) => self.scan_tokens(group.stream()),
                _ => {}
            }
        }
    }
}

/// The attribute a literal is the value of (`aria-label="…"` → `aria-label`), if it is one.
fn attribute_before(before: &[TokenTree]) -> Option<String> {
    let (last, rest) = before.split_last()?;
    if !matches!(last, TokenTree::Punct(p) if p.as_char() == '=') {
        return None;
    }
    let mut name = Vec::new();
    for token in rest.iter().rev() {
        match token {
            TokenTree::Ident(ident) => name.push(ident.to_string()),
            TokenTree::Punct(p) if matches!(p.as_char(), '-' | ':') => name.push(p.to_string()),
            _ => break,
        }
        // An attribute name ends where two names would meet without a dash.
        if name.len() >= 2 {
            let joined_by_punct = matches!(name[name.len() - 2].as_str(), "-" | ":")
                || matches!(name[name.len() - 1].as_str(), "-" | ":");
            if !joined_by_punct {
                name.pop();
                break;
            }
        }
    }
    name.reverse();
    Some(name.concat())
}

/// Whether a string reads as words a person would translate: any Chinese,
/// or two words of two or more letters in a row.
pub fn reads_as_words(text: &str) -> bool {
    if text
        .chars()
        .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c) || ('\u{3000}'..='\u{303f}').contains(&c))
    {
        return true;
    }
    let words: Vec<&str> = text.split(' ').collect();
    words
        .windows(2)
        .any(|pair| pair.iter().all(|word| is_word(word)))
}

/// A word of letters (an apostrophe or a trailing stop allowed): `order`, `it's`, `done.`
fn is_word(word: &str) -> bool {
    let word = word.trim_end_matches(['.', ',', ':', ';', '!', '?']);
    word.chars().filter(|c| c.is_ascii_alphabetic()).count() >= 2
        && word.chars().all(|c| c.is_ascii_alphabetic() || c == '\'')
}

impl<'ast> Visit<'ast> for Scanner {
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {
        // Docs and attributes are for programmers.
    }

    fn visit_item_mod(&mut self, module: &'ast syn::ItemMod) {
        if !is_test_only(&module.attrs) {
            syn::visit::visit_item_mod(self, module);
        }
    }

    fn visit_item_fn(&mut self, function: &'ast syn::ItemFn) {
        if !is_test_only(&function.attrs) {
            syn::visit::visit_item_fn(self, function);
        }
    }

    fn visit_lit_str(&mut self, literal: &'ast syn::LitStr) {
        self.check_words(literal);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        if call.method == "expect" {
            // A message for whoever reads the panic, not for the learner.
            self.visit_expr(&call.receiver);
        } else {
            syn::visit::visit_expr_method_call(self, call);
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let Some(name) = mac.path.segments.last().map(|s| s.ident.to_string()) else {
            return;
        };
        if name == "view" {
            self.scan_view(mac.tokens.clone());
        } else if !PROGRAMMER_MACROS.contains(&name.as_str()) {
            self.scan_tokens(mac.tokens.clone());
        }
    }
}
