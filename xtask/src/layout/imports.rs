//! Reading one crate's files with `syn`: which modules there are, what the
//! root re-exports, and which file each path leads to.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use syn::visit::Visit;

/// A module path inside a crate: `[]` is the crate root, `["steps"]` is `steps.rs`.
type ModulePath = Vec<String>;

/// What one crate's source files say about each other.
#[derive(Debug, Default)]
struct CrateFiles {
    /// Every module (file or inline) and the file that holds it.
    modules: BTreeMap<ModulePath, PathBuf>,
    /// Names the root re-exports or defines, and the path they come from.
    root_names: BTreeMap<String, ModulePath>,
    /// The paths each file refers to, with the module each was written in.
    references: Vec<(PathBuf, ModulePath, Vec<String>)>,
}

/// The module a file under `src` is: `lib.rs` the root, `a/b.rs` and `a/b/mod.rs` `a::b`.
fn module_of(src: &Path, file: &Path) -> Option<ModulePath> {
    let relative = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    match last.as_str() {
        "lib.rs" | "main.rs" if parts.is_empty() => {}
        "mod.rs" => {}
        _ => parts.push(last.strip_suffix(".rs")?.to_owned()),
    }
    // `src/bin/*.rs` are crates of their own, not modules.
    (parts.first().map(String::as_str) != Some("bin")).then_some(parts)
}

/// Which file of the crate at `src` imports which: file → the files it reaches.
pub(super) fn import_graph(src: &Path) -> Result<BTreeMap<PathBuf, BTreeSet<PathBuf>>> {
    let mut all = Vec::new();
    collect_rust_files(src, &mut all)?;
    // A binary next to a library is a crate of its own that uses the
    // library by name, never through `crate::`: leave it out.
    let has_lib = src.join("lib.rs").is_file();
    let mut crate_files = CrateFiles::default();
    for file in all {
        if has_lib && file == src.join("main.rs") {
            continue;
        }
        let Some(module) = module_of(src, &file) else {
            continue;
        };
        let text = std::fs::read_to_string(&file)?;
        let syntax =
            syn::parse_file(&text).with_context(|| format!("parsing {}", file.display()))?;
        crate_files.modules.insert(module.clone(), file.clone());
        let mut reader = FileReader {
            file: &file,
            module,
            files: &mut crate_files,
        };
        reader.visit_file(&syntax);
    }
    Ok(crate_files.edges())
}

/// Walks one file, noting its inline modules, the root's names and every path.
struct FileReader<'a> {
    file: &'a Path,
    module: ModulePath,
    files: &'a mut CrateFiles,
}

pub(crate) fn is_test_only(attributes: &[syn::Attribute]) -> bool {
    attributes.iter().any(|attribute| {
        attribute.path().is_ident("cfg")
            && attribute
                .parse_args::<syn::Path>()
                .is_ok_and(|path| path.is_ident("test"))
    })
}

impl<'ast> Visit<'ast> for FileReader<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attributes = match item {
            syn::Item::Mod(item) => &item.attrs,
            syn::Item::Fn(item) => &item.attrs,
            syn::Item::Impl(item) => &item.attrs,
            syn::Item::Use(item) => &item.attrs,
            syn::Item::Const(item) => &item.attrs,
            syn::Item::Static(item) => &item.attrs,
            syn::Item::Struct(item) => &item.attrs,
            _ => &Vec::new(),
        };
        if is_test_only(attributes) {
            return;
        }
        if self.module.is_empty() {
            self.note_root_name(item);
        }
        if let syn::Item::Macro(item) = item {
            let exported = item.attrs.iter().any(|a| a.path().is_ident("macro_export"));
            if let (true, Some(name)) = (exported, &item.ident) {
                // `#[macro_export]` puts the macro at the crate root, wherever it is written.
                self.files
                    .root_names
                    .insert(name.to_string(), self.module.clone());
            }
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        let Some((_, items)) = &item.content else {
            return;
        };
        // An inline module lives in this file, one level down.
        self.module.push(item.ident.to_string());
        self.files
            .modules
            .insert(self.module.clone(), self.file.to_owned());
        for inner in items {
            self.visit_item(inner);
        }
        self.module.pop();
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut paths = Vec::new();
        flatten_use(&item.tree, &mut Vec::new(), &mut paths);
        for (path, _) in paths {
            self.note_reference(path);
        }
    }

    /// `pub(crate)` and `pub(super)` name a scope, not an import.
    fn visit_visibility(&mut self, _visibility: &'ast syn::Visibility) {}

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.note_reference(segments);
        syn::visit::visit_path(self, path);
    }
}

impl FileReader<'_> {
    fn note_reference(&mut self, path: Vec<String>) {
        self.files
            .references
            .push((self.file.to_owned(), self.module.clone(), path));
    }

    /// A name the crate root defines or re-exports, and where it comes from.
    fn note_root_name(&mut self, item: &syn::Item) {
        let defined = match item {
            syn::Item::Fn(item) => Some(&item.sig.ident),
            syn::Item::Struct(item) => Some(&item.ident),
            syn::Item::Enum(item) => Some(&item.ident),
            syn::Item::Const(item) => Some(&item.ident),
            syn::Item::Static(item) => Some(&item.ident),
            syn::Item::Trait(item) => Some(&item.ident),
            syn::Item::Type(item) => Some(&item.ident),
            syn::Item::Use(item) => {
                let mut paths = Vec::new();
                flatten_use(&item.tree, &mut Vec::new(), &mut paths);
                for (path, name) in paths {
                    if let Some(name) = name {
                        self.files.root_names.insert(name, path);
                    }
                }
                None
            }
            _ => None,
        };
        if let Some(ident) = defined {
            self.files.root_names.insert(ident.to_string(), vec![]);
        }
    }
}

/// Every path a `use` tree names, with the name it brings in (none for `*`).
fn flatten_use(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            flatten_use(&path.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(name) => {
            let mut full = prefix.clone();
            let ident = name.ident.to_string();
            if ident != "self" {
                full.push(ident.clone());
            }
            let brought = if ident == "self" {
                prefix.last().cloned()
            } else {
                Some(ident)
            };
            out.push((full, brought));
        }
        syn::UseTree::Rename(rename) => {
            let mut full = prefix.clone();
            full.push(rename.ident.to_string());
            out.push((full, Some(rename.rename.to_string())));
        }
        syn::UseTree::Glob(_) => out.push((prefix.clone(), None)),
        syn::UseTree::Group(group) => {
            for item in &group.items {
                flatten_use(item, prefix, out);
            }
        }
    }
}

impl CrateFiles {
    /// The path `path`, written in module `from`, as a path from the crate
    /// root; `None` when it leads outside the crate.
    fn absolute(&self, from: &ModulePath, path: &[String]) -> Option<ModulePath> {
        let (first, rest) = path.split_first()?;
        let mut base = match first.as_str() {
            "crate" => return Some(rest.to_vec()),
            "self" => from.clone(),
            "super" => {
                let mut base = from.clone();
                base.pop()?;
                let mut rest = rest;
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
                base.extend(rest.iter().cloned());
                return Some(base);
            }
            _ => {
                let mut child = from.clone();
                child.push(first.clone());
                if !self.modules.contains_key(&child) {
                    return None;
                }
                from.clone()
            }
        };
        if first != "self" {
            base.push(first.clone());
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The file that holds what `path` (from the root) names.
    fn file_of(&self, path: &ModulePath, depth: usize) -> Option<&PathBuf> {
        let longest = (0..=path.len())
            .rev()
            .find(|&len| self.modules.contains_key(&path[..len]))?;
        if longest == 0 && depth < 8 {
            // A name at the root: re-exported from (or defined in) a file.
            if let Some(source) = path.first().and_then(|name| self.root_names.get(name))
                && !source.is_empty()
            {
                let source = self.absolute(&vec![], source).unwrap_or_default();
                if source != *path {
                    return self.file_of(&source, depth + 1);
                }
            }
        }
        self.modules.get(&path[..longest])
    }

    fn edges(&self) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
        let mut graph: BTreeMap<PathBuf, BTreeSet<PathBuf>> = self
            .modules
            .values()
            .map(|file| (file.clone(), BTreeSet::new()))
            .collect();
        for (file, module, path) in &self.references {
            let Some(absolute) = self.absolute(module, path) else {
                continue;
            };
            if let Some(target) = self.file_of(&absolute, 0)
                && target != file
            {
                graph
                    .entry(file.clone())
                    .or_default()
                    .insert(target.clone());
            }
        }
        graph
    }
}

/// Every `.rs` file under `dir`, in a stable order.
pub(crate) fn collect_rust_files(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect_rust_files(&path, files)?;
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    Ok(())
}
