//! The page's shell: the heading and introduction `crates/web/index.html`
//! paints in each language while the app loads. They must say what the
//! catalogue says (`page.title`, `page.intro`), or the text would change
//! under the learner's eyes as the app starts.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::Value;

/// The page whose shell is checked.
const INDEX_HTML: &str = "crates/web/index.html";

/// What differs between the shell and the catalogue, one line each;
/// `catalogues` holds each locale file's JSON by its tag (`en`, `zh-CN`).
pub fn check(root: &Path, catalogues: &[(String, Value)]) -> Result<Vec<String>> {
    let path = root.join(INDEX_HTML);
    let html =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let mut problems = Vec::new();
    for (tag, catalogue) in catalogues {
        for (element, key) in [("h1", "title"), ("p", "intro")] {
            let expected = catalogue["page"][key].as_str().unwrap_or_default();
            let found = text_of(&html, element, tag);
            if found != Some(expected) {
                problems.push(format!(
                    "{INDEX_HTML}: the shell's <{element} lang=\"{tag}\"> is {found:?}, the catalogue's page.{key} is {expected:?}"
                ));
            }
        }
    }
    Ok(problems)
}

/// The inner HTML of the first `<element lang="tag">` in `html`.
fn text_of<'a>(html: &'a str, element: &str, tag: &str) -> Option<&'a str> {
    let open = format!("<{element} lang=\"{tag}\">");
    let start = html.find(&open)? + open.len();
    let end = html[start..].find(&format!("</{element}>"))?;
    Some(&html[start..start + end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_elements_inner_html_is_found_by_its_language() {
        let html = r#"<h1 lang="en">Lab</h1><p lang="zh-CN">一 <em>键</em></p><p lang="en">A <em>key</em></p>"#;
        assert_eq!(text_of(html, "h1", "en"), Some("Lab"));
        assert_eq!(text_of(html, "p", "en"), Some("A <em>key</em>"));
        assert_eq!(text_of(html, "p", "zh-CN"), Some("一 <em>键</em>"));
        assert_eq!(text_of(html, "h1", "zh-CN"), None);
    }
}
