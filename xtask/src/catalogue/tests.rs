//! The catalogue check on hand-made catalogues and sources.

use std::collections::BTreeMap;

use serde_json::json;

use super::inline::{reads_as_words, scan_source};
use super::*;

fn catalogues(pairs: [(&str, Value); 2]) -> BTreeMap<String, BTreeMap<String, Shape>> {
    pairs
        .into_iter()
        .map(|(name, json)| (name.to_owned(), shapes(&json).unwrap()))
        .collect()
}

#[test]
fn the_same_keys_with_the_same_placeholders_pass() {
    let found = compare(&catalogues([
        (
            "en",
            json!({"page": {"title": "Lab", "count": "{{ n }} orders"}}),
        ),
        (
            "zh-CN",
            json!({"page": {"title": "实验", "count": "{{n}} 笔订单"}}),
        ),
    ]));
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn a_key_one_language_lacks_is_named_with_the_language() {
    let found = compare(&catalogues([
        ("en", json!({"page": {"title": "Lab", "reset": "Reset"}})),
        ("zh-CN", json!({"page": {"title": "实验"}})),
    ]));
    assert_eq!(found, ["zh-CN has no message \"page.reset\""]);
}

#[test]
fn a_placeholder_or_component_one_language_drops_is_caught() {
    let found = compare(&catalogues([
        (
            "en",
            json!({"a": "{{ orders }} × {{ price }}", "b": "<b>Naive</b> looks"}),
        ),
        ("zh-CN", json!({"a": "{{ orders }} 笔", "b": "朴素版先查"})),
    ]));
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].contains("\"a\"") && found[0].contains("price"),
        "{found:?}"
    );
    assert!(found[1].contains("<b>"), "{found:?}");
}

#[test]
fn counted_messages_may_differ_in_forms_but_not_in_kind_or_placeholders() {
    let en = json!({
        "sent": ["u64", ["one request to {{ who }}", 1], ["{{ count }} requests to {{ who }}"]],
        "plain": "{{ count }} orders",
        "kept": "{{ count }} orders kept"
    });
    let zh = json!({
        "sent": ["u64", ["向 {{ who }} 发送了请求"]],
        "plain": [["{{ count }} 笔订单"]],
        "kept": "保留了订单"
    });
    let found = compare(&catalogues([("en", en), ("zh-CN", zh)]));
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].starts_with("\"kept\" uses"),
        "a plain message keeps its number: {found:?}"
    );
    assert!(
        found[1].contains("\"plain\" depends on a count in zh-CN but not in en"),
        "{found:?}"
    );
}

#[test]
fn text_in_a_view_is_found_and_attributes_people_do_not_read_are_not() {
    let source = r#"
        fn page() -> impl IntoView {
            view! {
                <p class="hint field" id="place-order">"Place order"</p>
                <input aria-label="Amount" type="number" />
                <h3>{t!(i18n, pane.attempts)}</h3>
                <span>" · "</span>
            }
        }
    "#;
    let found = scan_source(source).unwrap();
    let what: Vec<&str> = found.iter().map(|(_, what)| what.as_str()).collect();
    assert_eq!(what.len(), 2, "{what:?}");
    assert!(
        what[0].starts_with("element text \"Place order\""),
        "{what:?}"
    );
    assert!(
        what[1].starts_with("the aria-label attribute \"Amount\""),
        "{what:?}"
    );
    assert_eq!(found[0].0, 4, "the line of the text");
}

#[test]
fn words_in_rust_are_found_but_messages_for_programmers_and_tests_are_not() {
    let source = r#"
        /// Docs say "many words here" and that is fine.
        fn status() -> String {
            let ok = format!("preset-{}", 3);
            let sure = window().expect("the page runs in a window");
            assert!(sure, "a message for whoever reads the panic");
            format!("Nothing was sent: {}", ok)
        }
        fn chinese() -> &'static str { "完成" }
        #[cfg(test)]
        mod tests {
            fn names() -> &'static str { "Purchase 1 · key k1" }
        }
    "#;
    let found = scan_source(source).unwrap();
    let what: Vec<&str> = found.iter().map(|(_, what)| what.as_str()).collect();
    assert_eq!(what.len(), 2, "{what:?}");
    assert!(what[0].contains("Nothing was sent"), "{what:?}");
    assert!(what[1].contains("完成"), "{what:?}");
}

#[test]
fn words_are_told_from_names_formats_and_units() {
    for text in [
        "Place order",
        "the server answered",
        "done. Compare",
        "中文",
    ] {
        assert!(reads_as_words(text), "{text}");
    }
    for text in [
        "preset-{}",
        "%H:%M:%S%.3f UTC",
        "0–500 ms",
        "201",
        "pane-1",
        "/api/steps?lab={}",
        "",
    ] {
        assert!(!reads_as_words(text), "{text}");
    }
}

#[test]
fn the_labs_own_catalogue_and_page_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let summary = check(root).unwrap_or_else(|problems| panic!("{problems}"));
    assert!(summary.contains("in each of 2 (en, zh-CN)"), "{summary}");
}
