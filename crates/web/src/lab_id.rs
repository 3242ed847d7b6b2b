//! Each browser is its own lab, opened by a random secret kept in the
//! URL's fragment (`#secret=…`): a reload keeps the learner's orders, and
//! the link opens the same lab on another device. The browser never sends
//! a fragment to a server, so the secret stays out of logs and `Referer`
//! headers; the page sends it only as `Lab-Secret`. The lab's public id,
//! shown on the page, is derived from it (see [`LabSecret::lab_id`]).

use lab_wire::LabSecret;

use crate::url::{hash_params, replace_hash, replace_search, search_params};

/// The lab whose secret is in the page's URL, or a new one written there.
pub fn current_lab() -> LabSecret {
    forget_old_lab_parameter();
    let params = hash_params();
    if let Some(secret) = params
        .as_ref()
        .and_then(|params| params.get("secret"))
        .and_then(|raw| LabSecret::try_from(raw.as_str()).ok())
    {
        return secret;
    }
    let secret = new_secret();
    if let Some(params) = params {
        params.set("secret", secret.as_str());
        replace_hash(&params);
    }
    secret
}

/// Reloads the page when its link comes to name another lab (a lab link
/// pasted into this tab changes only the fragment, which browsers follow
/// without loading the page again), so the page never shows one lab while
/// its address names another.
pub fn reload_when_the_lab_in_the_link_changes(lab: &LabSecret) {
    let shown = lab.as_str().to_owned();
    let handle = leptos::prelude::window_event_listener(leptos::ev::hashchange, move |_| {
        let linked = hash_params().and_then(|params| params.get("secret"));
        if linked.as_deref() != Some(shown.as_str())
            && let Some(window) = web_sys::window()
        {
            let _ = window.location().reload();
        }
    });
    // For the page's lifetime.
    std::mem::forget(handle);
}

/// Links from before labs had secrets named the lab in `?lab=`; such a
/// lab cannot be opened any more, so the parameter would only mislead.
fn forget_old_lab_parameter() {
    if let Some(params) = search_params().filter(|params| params.has("lab")) {
        params.delete("lab");
        replace_search(&params);
    }
}

/// A new lab's secret: 128 random bits in hex.
fn new_secret() -> LabSecret {
    LabSecret::try_from(random_hex(16).as_str()).expect("32 hex digits make a lab secret")
}

/// A new idempotency key: a random (version 4) UUID.
///
/// `crypto.getRandomValues` works on plain-HTTP workshop servers too,
/// where `crypto.randomUUID` does not exist.
pub fn new_key() -> String {
    let mut bytes = [0u8; 16];
    fill_random(&mut bytes);
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .to_string()
}

fn random_hex(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    fill_random(&mut buffer);
    buffer.iter().map(|b| format!("{b:02x}")).collect()
}

fn fill_random(buffer: &mut [u8]) {
    let crypto = web_sys::window()
        .and_then(|window| window.crypto().ok())
        .expect("the browser provides crypto.getRandomValues");
    crypto
        .get_random_values_with_u8_array(buffer)
        .expect("crypto.getRandomValues fills a small buffer");
}
