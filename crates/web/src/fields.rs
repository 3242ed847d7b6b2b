//! Labelled form controls. Each is a real `<input>` with a `<label>` and a
//! hint tied to it with `aria-describedby`, so it works with a keyboard and
//! a screen reader and tests can find it by its visible label.

use crate::words::say;
use lab_client::{ClientForm, Design, DesignText, FieldKind, FormField, Text};
use leptos::prelude::*;

/// One control of the form's table ([`lab_client::form::FORM_FIELDS`]):
/// a checkbox or a whole-number field, reading and writing `form`.
#[component]
pub fn FormFieldView(field: &'static FormField, form: RwSignal<ClientForm>) -> impl IntoView {
    let FormField {
        id, label, hint, ..
    } = *field;
    let (label, hint) = (say(label), say(hint));
    let hint_id = format!("{id}-hint");
    match field.kind {
        FieldKind::Check { get, set } => view! {
            <div class="field check">
                <input
                    type="checkbox"
                    id=id
                    aria-describedby=hint_id.clone()
                    prop:checked=move || form.with(get)
                    on:change=move |ev| form.update(|form| set(form, event_target_checked(&ev)))
                />
                <label for=id>{label}</label>
                <p class="hint" id=hint_id>{hint}</p>
            </div>
        }
        .into_any(),
        FieldKind::Number {
            get,
            set,
            min,
            max,
            step,
            enabled,
        } => view! {
            <div class="field number">
                <label for=id>{label}</label>
                <input
                    type="number"
                    id=id
                    inputmode="numeric"
                    min=min
                    max=max
                    step=step
                    aria-describedby=hint_id.clone()
                    disabled=move || !form.with(enabled)
                    prop:value=move || form.with(get).to_string()
                    on:change=move |ev| {
                        let typed = event_target_value(&ev).trim().parse::<u32>().unwrap_or(min);
                        // Setting the same value still re-renders the input, which
                        // replaces text that was not a number.
                        form.update(|form| set(form, typed.clamp(min, max)));
                    }
                />
                <p class="hint" id=hint_id>{hint}</p>
            </div>
        }
        .into_any(),
    }
}

/// A text field.
#[component]
pub fn TextField(
    id: &'static str,
    label: Text,
    hint: Text,
    value: RwSignal<String>,
    #[prop(default = "text")] inputmode: &'static str,
) -> impl IntoView {
    let (label, hint) = (say(label), say(hint));
    let hint_id = format!("{id}-hint");
    view! {
        <div class="field text">
            <label for=id>{label}</label>
            <input
                type="text"
                id=id
                inputmode=inputmode
                aria-describedby=hint_id.clone()
                prop:value=value
                on:input=move |ev| value.set(event_target_value(&ev))
            />
            <p class="hint" id=hint_id>{hint}</p>
        </div>
    }
}

/// A choice of the server a pane shows. The server the other pane shows is
/// offered but disabled: two panes on one server would share its orders.
#[component]
pub fn DesignField(
    id: &'static str,
    label: Text,
    hint: Text,
    #[prop(into)] value: Signal<Design>,
    #[prop(into)] taken: Signal<Design>,
    #[prop(into)] disabled: Signal<bool>,
    on_choose: Callback<Design>,
) -> impl IntoView {
    let (label, hint) = (say(label), say(hint));
    let hint_id = format!("{id}-hint");
    let options = Design::ALL
        .into_iter()
        .map(|design| {
            view! {
                <option
                    value=design.name()
                    prop:selected=move || value.get() == design
                    disabled=move || taken.get() == design
                >
                    {say(move |locale| design.choice(locale))}
                </option>
            }
        })
        .collect_view();
    view! {
        <div class="field select">
            <label for=id>{label}</label>
            <select
                id=id
                aria-describedby=hint_id.clone()
                disabled=disabled
                on:change=move |ev| {
                    if let Some(design) = Design::from_name(&event_target_value(&ev)) {
                        on_choose.run(design);
                    }
                }
            >
                {options}
            </select>
            <p class="hint" id=hint_id>{hint}</p>
        </div>
    }
}
