//! The page's language, in context, and a text of the page in it,
//! following it when the learner switches.
//!
//! Texts go through [`say`], so each is a `Signal<String>` and a view
//! renders them all with the same code, where a `t!` or a `move || …` per
//! text has the renderer's generic code compiled once per text (measured:
//! 1.2 KB of the gzipped bundle, and one way of writing a text instead of three).

use lab_client::Locale;
use leptos::prelude::*;

/// The page's language, shared through context (see
/// [`crate::language::provide_locale`], which chooses it).
#[derive(Clone, Copy)]
struct PageLocale(RwSignal<Locale>);

/// Puts the page's language in context, starting at `locale`.
pub fn provide_page_locale(locale: Locale) -> RwSignal<Locale> {
    let locale = RwSignal::new(locale);
    provide_context(PageLocale(locale));
    locale
}

/// The page's language, read reactively: a view or memo that calls it
/// follows a switch.
pub fn use_locale() -> RwSignal<Locale> {
    expect_context::<PageLocale>().0
}

/// `text` in the page's language, again whenever the language (or a signal `text` reads) changes.
pub fn say(text: impl Fn(Locale) -> String + Send + Sync + 'static) -> Signal<String> {
    let locale = use_locale();
    Signal::derive(move || text(locale.get()))
}
