//! The checker on small made-up crates, and on this workspace.

use super::*;

/// A crate made of `files` in a fresh folder; returns its `src/`.
fn crate_of(files: &[(&str, &str)]) -> PathBuf {
    let src = std::env::temp_dir()
        .join(format!("layout-{}", std::process::id()))
        .join(format!("{:x}", rand_suffix()))
        .join("src");
    for (name, text) in files {
        let path = src.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    src
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

fn cycle_names(src: &Path) -> Vec<Vec<String>> {
    cycles(&import_graph(src).unwrap())
        .into_iter()
        .map(|cycle| cycle.iter().map(|f| relative(src, f)).collect())
        .collect()
}

#[test]
fn two_files_that_import_each_other_are_a_cycle() {
    let src = crate_of(&[
        ("lib.rs", "mod a; mod b;"),
        ("a.rs", "use crate::b::B; pub struct A;"),
        ("b.rs", "pub struct B; fn f() -> crate::a::A { todo!() }"),
    ]);
    assert_eq!(cycle_names(&src), [["a.rs", "b.rs", "a.rs"]]);
}

#[test]
fn a_name_the_root_re_exports_counts_as_the_file_that_defines_it() {
    let src = crate_of(&[
        ("lib.rs", "mod a; mod b; pub use b::B;"),
        ("a.rs", "use crate::B; pub struct A;"),
        ("b.rs", "use super::a::A; pub struct B;"),
    ]);
    assert_eq!(cycle_names(&src), [["a.rs", "b.rs", "a.rs"]]);
}

#[test]
fn imports_in_one_direction_and_test_modules_are_no_cycle() {
    let src = crate_of(&[
        ("lib.rs", "mod a; mod b; mod c; pub use c::C;"),
        ("a.rs", "use crate::{b::B, C}; pub struct A;"),
        (
            "b.rs",
            "use crate::C; pub struct B;\n#[cfg(test)]\nmod tests { use crate::a::A; }",
        ),
        (
            "c.rs",
            "pub(crate) struct C; fn no_import(text: &str) -> &str { \"crate::a::A\" }",
        ),
    ]);
    assert!(cycle_names(&src).is_empty(), "{:?}", cycle_names(&src));
}

#[test]
fn a_longer_cycle_is_reported_once_in_order() {
    let src = crate_of(&[
        ("lib.rs", "mod a; mod b; mod c;"),
        ("a.rs", "use crate::b::B; pub struct A;"),
        ("b.rs", "use crate::c::C; pub struct B;"),
        ("c.rs", "use crate::a::A; pub struct C;"),
    ]);
    assert_eq!(cycle_names(&src), [["a.rs", "b.rs", "c.rs", "a.rs"]]);
}

#[test]
fn nested_files_and_macros_resolve_to_their_file() {
    let src = crate_of(&[
        ("lib.rs", "mod db; mod orders;"),
        (
            "db/mod.rs",
            "#[macro_export] macro_rules! with_pool { () => {} }\nuse crate::orders::O;",
        ),
        ("orders.rs", "pub struct O; fn f() { crate::with_pool!(); }"),
    ]);
    assert_eq!(cycle_names(&src), [["db/mod.rs", "orders.rs", "db/mod.rs"]]);
}

#[test]
fn the_workspace_itself_has_no_cycles_and_no_overlong_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    check(root).unwrap();
}
