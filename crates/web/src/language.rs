//! The page's language: English or Simplified Chinese. A `?lang=zh-CN` or
//! `?lang=en` in the link wins; otherwise the learner's last choice, kept in
//! the browser's `localStorage`; otherwise what the browser prefers
//! (leptos_i18n reads `navigator.languages`). The switch on the page changes
//! it without a reload, so the lab and its orders stay.
//!
//! The choice is kept in `localStorage` rather than in leptos_i18n's cookie:
//! its cookie support brings a cookie parser and the `time` crate, 35 KB of
//! the page's gzipped bundle (measured), for one word the server never reads.

use lab_i18n::i18n::{Locale, td_string, use_i18n};
use lab_i18n::{LOCALES, locale_for_tag, tag_of};
use leptos::prelude::*;

use crate::url::{replace_search, search_params};
use crate::words::say;
use leptos_i18n::I18nContext;

/// The URL parameter a link names the language with.
const LANG_PARAM: &str = "lang";

/// Where the browser keeps the learner's choice.
const STORAGE_KEY: &str = "idempotency-lab-language";

/// Starts in the language a `?lang=` of the page's URL names, else in the
/// one chosen last, else in the browser's (already set by leptos_i18n).
///
/// Call it from an effect created after the `I18nContextProvider`: the
/// provider's own first effect sets the browser's language, and effects run
/// in the order they were made, so this one has the last word.
pub fn choose_at_start(i18n: I18nContext<Locale>) {
    let from_link = search_params()
        .and_then(|params| params.get(LANG_PARAM))
        .and_then(|tag| locale_for_tag(&tag));
    let chosen_before = || {
        storage()?
            .get_item(STORAGE_KEY)
            .ok()
            .flatten()
            .and_then(|tag| locale_for_tag(&tag))
    };
    if let Some(locale) = from_link.or_else(chosen_before) {
        remember(locale);
        i18n.set_locale(locale);
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

fn remember(locale: Locale) {
    if let Some(storage) = storage() {
        // A browser that refuses storage (private mode) still switches; it only forgets.
        let _ = storage.set_item(STORAGE_KEY, tag_of(locale));
    }
}

/// Switches to `locale` and remembers it. A `?lang=` in the URL is
/// rewritten to match, or a reload would switch back to the link's language.
fn switch_to(i18n: I18nContext<Locale>, locale: Locale) {
    i18n.set_locale(locale);
    remember(locale);
    let Some(params) = search_params() else {
        return;
    };
    if params.has(LANG_PARAM) {
        params.set(LANG_PARAM, tag_of(locale));
        replace_search(&params);
    }
}

/// The language switch: a labelled selector of every language, each named in itself.
#[component]
pub fn LanguageField() -> impl IntoView {
    let i18n = use_i18n();
    // The tab's title follows the language too.
    Effect::new(move || {
        let title = td_string!(i18n.get_locale(), page.title);
        if let Some(document) = web_sys::window().and_then(|w| w.document()) {
            document.set_title(title);
        }
    });
    let options = LOCALES
        .into_iter()
        .map(|locale| {
            let name = match locale {
                Locale::en => say(|l| td_string!(l, language.en).to_string()),
                Locale::zh_CN => say(|l| td_string!(l, language.zh_cn).to_string()),
            };
            view! {
                <option value=tag_of(locale) prop:selected=move || i18n.get_locale() == locale>
                    {name}
                </option>
            }
        })
        .collect_view();
    view! {
        <div class="field select language">
            <label for="language">{say(|l| td_string!(l, language.label).to_string())}</label>
            <select
                id="language"
                on:change=move |ev| {
                    if let Some(locale) = locale_for_tag(&event_target_value(&ev)) {
                        switch_to(i18n, locale);
                    }
                }
            >
                {options}
            </select>
        </div>
    }
}
