//! The scheduler's challenges a lab has met, kept by the browser (local
//! storage, one entry per lab): the scheduler page writes them as they are
//! met, and the lesson's scheduler step reads them, follows them while the
//! scheduler runs in another tab (the browser's `storage` event), and
//! reports them with the lesson's progress for the teacher's view.

use lab_client::scheduler::Challenges;
use lab_wire::LabSecret;

/// The storage entry of `lab`'s challenges (by its public id: the secret
/// stays in the link alone).
fn key_of(lab: &LabSecret) -> String {
    format!("idempotency-lab-challenges-{}", lab.lab_id())
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// What the browser remembers of `lab`'s challenges (none, if nothing or
/// nothing readable).
pub fn stored(lab: &LabSecret) -> Challenges {
    storage()
        .and_then(|s| s.get_item(&key_of(lab)).ok()?)
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default()
}

/// Remembers `challenges` for `lab`.
#[cfg(feature = "viewer")]
pub fn store(lab: &LabSecret, challenges: &Challenges) {
    if let (Some(storage), Ok(json)) = (storage(), serde_json::to_string(challenges)) {
        let _ = storage.set_item(&key_of(lab), &json);
    }
}

/// Calls `changed` with `lab`'s challenges whenever another tab of this
/// browser (the scheduler) changes them, for the page's lifetime.
pub fn follow(lab: &LabSecret, changed: impl Fn(Challenges) + 'static) {
    let key = key_of(lab);
    let lab = lab.clone();
    let handle = leptos::prelude::window_event_listener(leptos::ev::storage, move |event| {
        if event.key().as_deref() == Some(key.as_str()) {
            changed(stored(&lab));
        }
    });
    // For the page's lifetime.
    std::mem::forget(handle);
}
