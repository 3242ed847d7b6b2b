//! The form's table of fields: each reads what it writes, and every scenario shows as it runs.

use super::*;
use crate::PRESETS;

fn every_field() -> impl Iterator<Item = &'static FormField> {
    fields_of(FieldGroup::Client).chain(fields_of(FieldGroup::Server))
}

#[test]
fn every_scenario_is_shown_by_the_form_exactly_as_it_runs() {
    let mut form = ClientForm::default();
    for preset in &PRESETS {
        form.show(&preset.policy);
        assert_eq!(form.policy(), preset.policy, "{}", preset.id);
    }
}

#[test]
fn every_field_writes_what_it_reads_and_only_that() {
    for field in every_field() {
        let mut form = ClientForm::default();
        let before = form.clone();
        match field.kind {
            FieldKind::Check { get, set } => {
                set(&mut form, !get(&before));
                assert_eq!(get(&form), !get(&before), "{}", field.id);
            }
            FieldKind::Number { get, set, max, .. } => {
                set(&mut form, max);
                assert_eq!(get(&form), max, "{}", field.id);
            }
        }
        assert_ne!(form, before, "{} changes the form", field.id);
        let changed_by_others = every_field()
            .filter(|other| other.id != field.id)
            .all(|other| match other.kind {
                FieldKind::Check { get, .. } => get(&form) == get(&before),
                FieldKind::Number { get, .. } => get(&form) == get(&before),
            });
        assert!(changed_by_others, "{} changes only itself", field.id);
    }
}

#[test]
fn copies_count_only_while_sending_concurrently_and_are_remembered() {
    let mut form = ClientForm {
        copies: 5,
        ..ClientForm::default()
    };
    assert_eq!(form.policy().copies, 1);
    form.concurrent = true;
    assert_eq!(form.policy().copies, 5);
    form.show(&ClientPolicy::PLAIN);
    assert!(!form.concurrent);
    assert_eq!(form.copies, 5, "a one-request scenario keeps the number");
}

#[test]
fn ids_are_unique_and_every_field_has_its_own_label_and_a_hint_in_each_language() {
    let ids: std::collections::HashSet<_> = every_field().map(|field| field.id).collect();
    assert_eq!(ids.len(), FORM_FIELDS.len());
    for locale in lab_i18n::LOCALES {
        let labels: std::collections::HashSet<_> =
            every_field().map(|f| (f.label)(locale)).collect();
        assert_eq!(labels.len(), FORM_FIELDS.len(), "{locale:?}");
        assert!(every_field().all(|f| (f.hint)(locale).len() > (f.label)(locale).len()));
    }
    assert_eq!((FORM_FIELDS[0].label)(lab_i18n::Locale::zh_CN), "丢弃响应");
}

#[test]
fn the_largest_number_a_field_offers_is_sent_as_it_is_not_cut_down() {
    for field in every_field() {
        if let FieldKind::Number { get, set, max, .. } = field.kind {
            let mut form = ClientForm {
                concurrent: true,
                ..ClientForm::default()
            };
            set(&mut form, max);
            let mut sent = ClientForm::default();
            sent.show(&form.policy());
            assert_eq!(get(&sent), max, "{}", field.id);
        }
    }
}
