//! Every word the page shows, in one catalogue per language:
//! `locales/en.json` and `locales/zh-CN.json`. `build.rs` turns them into
//! Rust (leptos_i18n's code generator), so a key that is missing from the
//! code, or a placeholder a message needs and is not given, fails the build,
//! and the page's bundle carries no translation runtime. A counted message
//! is a leptos_i18n range, a form per count (`["u64", ["1 answer…", 1],
//! ["{{ count }} answers…"]]`): English needs two, Chinese one. Ranges are
//! deprecated in leptos_i18n 0.6 in favour of CLDR plurals, which would add
//! ICU's plural rules and data to the page (14.3 KB gzipped, measured) for
//! two languages that do not need them.
//!
//! Everything renders with `td_string!(locale, key, …)`, which needs no
//! reactive owner: the verdicts, steps and labels `lab-client` builds from
//! what happened are unit-tested natively in both languages, and the page
//! wraps each text in a signal of the current language (`web`'s `say`);
//! only texts with markup in them (`<strong>`) use `td!` in a view. `cargo xtask check-catalogue` checks that both files hold the
//! same keys with the same placeholders.

include!(concat!(env!("OUT_DIR"), "/i18n.rs"));

pub use i18n::Locale;

/// Every language of the catalogue, in the order the language switch offers them.
pub const LOCALES: [Locale; 2] = [Locale::en, Locale::zh_CN];

/// The catalogue's language for a BCP 47 tag such as a `?lang=` value or
/// one of the browser's `navigator.languages`: `zh`, `zh-CN`, `zh-Hans-CN`
/// and `zh-SG` are Simplified Chinese, `en` and `en-GB` English.
/// Traditional Chinese (`zh-TW`, `zh-HK`, `zh-Hant`) and other languages
/// have no catalogue: `None`.
pub fn locale_for_tag(tag: &str) -> Option<Locale> {
    let tag = tag.trim().to_ascii_lowercase().replace('_', "-");
    let mut parts = tag.split('-');
    match parts.next()? {
        "en" => Some(Locale::en),
        "zh" => {
            let traditional = parts.any(|part| matches!(part, "hant" | "tw" | "hk" | "mo"));
            (!traditional).then_some(Locale::zh_CN)
        }
        _ => None,
    }
}

/// The tag of `locale` as `?lang=` and the page's `lang` attribute write it: `en`, `zh-CN`.
pub fn tag_of(locale: Locale) -> &'static str {
    match locale {
        Locale::en => "en",
        Locale::zh_CN => "zh-CN",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simplified_chinese_tags_find_the_chinese_catalogue_and_traditional_ones_do_not() {
        for tag in [
            "zh",
            "zh-CN",
            "zh-cn",
            "zh_CN",
            "zh-Hans",
            "zh-Hans-CN",
            "zh-SG",
        ] {
            assert_eq!(locale_for_tag(tag), Some(Locale::zh_CN), "{tag}");
        }
        for tag in ["zh-TW", "zh-Hant", "zh-HK", "fr", "", "-"] {
            assert_eq!(locale_for_tag(tag), None, "{tag}");
        }
        assert_eq!(locale_for_tag("en-GB"), Some(Locale::en));
    }

    #[test]
    fn every_locale_is_found_again_by_its_own_tag() {
        for locale in LOCALES {
            assert_eq!(locale_for_tag(tag_of(locale)), Some(locale));
        }
    }

    #[test]
    fn a_message_renders_in_each_language_with_its_numbers() {
        use i18n::td_string;
        assert_eq!(
            td_string!(Locale::en, pane.orders_stored, count = 3),
            "Orders stored: 3"
        );
        assert_eq!(
            td_string!(Locale::zh_CN, pane.orders_stored, count = 3),
            "已存订单：3"
        );
        assert_eq!(
            td_string!(Locale::en, verdict.dropped, count = 1),
            "1 answer was lost on the way back although the order was made"
        );
        assert_eq!(
            td_string!(Locale::en, verdict.dropped, count = 2),
            "2 answers were lost on the way back although the order was made"
        );
        assert_eq!(
            td_string!(Locale::zh_CN, verdict.dropped, count = 1),
            "订单已经创建，但有 1 个响应在返回途中丢失"
        );
    }
}
