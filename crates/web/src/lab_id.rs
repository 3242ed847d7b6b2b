//! Each browser is its own lab: a random id kept in the URL (`?lab=…`),
//! so a reload keeps the learner's orders and a link opens the same lab.

use lab_wire::LabId;

use crate::url::{replace_search, search_params};

/// The lab named in the page's URL, or a new one written into the URL
/// (beside any other parameter the link carries).
pub fn current_lab() -> LabId {
    let Some(params) = search_params() else {
        return new_lab();
    };
    if let Some(lab) = params
        .get("lab")
        .and_then(|raw| LabId::try_from(raw.as_str()).ok())
    {
        return lab;
    }
    let lab = new_lab();
    params.set("lab", lab.as_str());
    replace_search(&params);
    lab
}

fn new_lab() -> LabId {
    LabId::try_from(format!("lab-{}", random_hex(4)).as_str()).expect("hex is a valid lab id")
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
