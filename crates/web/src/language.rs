//! The page's language: English or Simplified Chinese. A `?lang=zh-CN` or
//! `?lang=en` in the link wins; otherwise the learner's last choice, kept in
//! the browser's `localStorage`; otherwise the first of the browser's
//! `navigator.languages` that has a catalogue; otherwise English. The switch
//! on the page changes it without a reload, so the lab and its orders stay.
//!
//! The page keeps the language in a signal of its own, in context, rather
//! than in leptos_i18n's context: that context matches languages with ICU's
//! locale parser and brings leptos_meta and leptos_use along, about 8 KB of
//! the gzipped bundle (measured), for a choice among two catalogues that
//! [`locale_for_tag`] makes in a dozen lines. For the same reason the choice
//! is kept in `localStorage`, not in leptos_i18n's cookie (its parser and
//! the `time` crate: 35 KB).

use lab_i18n::i18n::{Locale, td_string};
use lab_i18n::{LOCALES, locale_for_tag, tag_of};
use leptos::prelude::*;

use crate::url::{replace_search, search_params};
use crate::words::{provide_page_locale, say, use_locale};

/// The URL parameter a link names the language with.
const LANG_PARAM: &str = "lang";

/// Where the browser keeps the learner's choice.
const STORAGE_KEY: &str = "idempotency-lab-language";

/// Chooses the language the page starts in, puts it in context, and keeps
/// the page's `lang` attribute and the tab's title in step with it.
pub fn provide_locale() -> RwSignal<Locale> {
    let locale = provide_page_locale(starting_locale());
    Effect::new(move || {
        let locale = locale.get();
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        if let Some(html) = document.document_element() {
            let _ = html.set_attribute("lang", tag_of(locale));
        }
        document.set_title(td_string!(locale, page.title));
    });
    locale
}

/// The language a `?lang=` of the page's URL names, else the one chosen
/// last, else the browser's, else English.
fn starting_locale() -> Locale {
    let from_link = search_params()
        .and_then(|params| params.get(LANG_PARAM))
        .and_then(|tag| locale_for_tag(&tag));
    if let Some(locale) = from_link {
        remember(locale);
        return locale;
    }
    let chosen_before = storage()
        .and_then(|storage| storage.get_item(STORAGE_KEY).ok().flatten())
        .and_then(|tag| locale_for_tag(&tag));
    chosen_before.or_else(browser_locale).unwrap_or(Locale::en)
}

/// The first of the browser's preferred languages that has a catalogue.
fn browser_locale() -> Option<Locale> {
    let languages = web_sys::window()?.navigator().languages();
    languages
        .iter()
        .filter_map(|tag| tag.as_string())
        .find_map(|tag| locale_for_tag(&tag))
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
fn switch_to(page: RwSignal<Locale>, locale: Locale) {
    page.set(locale);
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
    let page = use_locale();
    let options = LOCALES
        .into_iter()
        .map(|locale| {
            let name = match locale {
                Locale::en => say(|l| td_string!(l, language.en).to_string()),
                Locale::zh_CN => say(|l| td_string!(l, language.zh_cn).to_string()),
            };
            view! {
                <option value=tag_of(locale) prop:selected=move || page.get() == locale>
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
                        switch_to(page, locale);
                    }
                }
            >
                {options}
            </select>
        </div>
    }
}
