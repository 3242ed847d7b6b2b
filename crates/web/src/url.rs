//! The page's URL: its query string (`?lang=…`) and its fragment
//! (`#secret=…`, which the browser never sends to a server). Read them, and
//! rewrite one without a reload, keeping the other and the parameters a
//! caller did not touch.

use web_sys::UrlSearchParams;

/// The parameters of the page's query string.
pub fn search_params() -> Option<UrlSearchParams> {
    let search = web_sys::window()?.location().search().ok()?;
    UrlSearchParams::new_with_str(&search).ok()
}

/// The parameters of the page's fragment (`#name=value&…`).
pub fn hash_params() -> Option<UrlSearchParams> {
    let hash = web_sys::window()?.location().hash().ok()?;
    UrlSearchParams::new_with_str(hash.trim_start_matches('#')).ok()
}

/// Puts `params` in the address bar in place of the current query, so a
/// reload or a copied link carries them; no reload, no new history entry.
pub fn replace_search(params: &UrlSearchParams) {
    replace_url(Some(params), None);
}

/// Like [`replace_search`], for the fragment.
pub fn replace_hash(params: &UrlSearchParams) {
    replace_url(None, Some(params));
}

/// Puts `link` (a path and its query) in the address bar, keeping the
/// fragment; no reload, no new history entry.
#[cfg(feature = "viewer")]
pub fn replace_link(link: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let hash = window.location().hash().unwrap_or_default();
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("{link}{hash}")),
        );
    }
}

fn replace_url(search: Option<&UrlSearchParams>, hash: Option<&UrlSearchParams>) {
    let (Some(search), Some(hash)) = (
        search.cloned().or_else(search_params),
        hash.cloned().or_else(hash_params),
    ) else {
        return;
    };
    let search = String::from(search.to_string());
    let hash = String::from(hash.to_string());
    let path = web_sys::window()
        .and_then(|w| w.location().pathname().ok())
        .unwrap_or_default();
    let mut url = path;
    if !search.is_empty() {
        url.push('?');
        url.push_str(&search);
    }
    if !hash.is_empty() {
        url.push('#');
        url.push_str(&hash);
    }
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}
