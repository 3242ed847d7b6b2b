//! The page's query string (`?lab=…&lang=…`): read it, and rewrite it
//! without a reload, keeping the parameters a caller did not touch.

use web_sys::UrlSearchParams;

/// The parameters of the page's URL.
pub fn search_params() -> Option<UrlSearchParams> {
    let search = web_sys::window()?.location().search().ok()?;
    UrlSearchParams::new_with_str(&search).ok()
}

/// Puts `params` in the address bar in place of the current ones, so a
/// reload or a copied link carries them; no reload, no new history entry.
pub fn replace_search(params: &UrlSearchParams) {
    let url = format!("?{}", String::from(params.to_string()));
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}
