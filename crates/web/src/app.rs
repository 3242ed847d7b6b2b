//! The page: scenario presets, the client's controls, the choice of servers,
//! and one pane per server shown, in the learner's language.

use futures::future::{join, join_all};
use lab_client::lesson;
use lab_client::{
    ClientForm, DEFAULT_PANES, Design, FieldGroup, Locale, PRESETS, Preset, Purchases, fields_of,
    parse_money, timeline,
};
use lab_i18n::i18n::{td, td_string};
use lab_wire::NewOrder;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api;
use crate::fields::{DesignField, FormFieldView, TextField};
use crate::lab_id::{current_lab, reload_when_the_lab_in_the_link_changes};
use crate::language::{LanguageField, provide_locale};
use crate::lesson::{Lesson, LessonBanner, LessonCard};
use crate::playback::Playback;
use crate::receiving::ReceivingSide;
use crate::results::Results;
use crate::results_view::RunResults;
use crate::run_axis::RunAxis;
use crate::run_link::SavedRunLink;
use crate::runner::{RunContext, now_ms, run_purchase};
use crate::state::{Controls, Pane};
use crate::status::Status;
use crate::words::{say, use_locale};

/// The id of index.html's `<main>`, which the lab is drawn into, under
/// the page's heading and introduction.
pub const LAB_ELEMENT: &str = "lab";

/// The page, in the learner's language (see [`crate::language`]).
#[component]
pub fn App() -> impl IntoView {
    provide_locale();
    view! { <Lab /> }
}

/// The lab itself.
#[component]
fn Lab() -> impl IntoView {
    let page_locale = use_locale();
    let locale = move || page_locale.get();
    let lab = StoredValue::new(current_lab());
    reload_when_the_lab_in_the_link_changes(&lab.get_value());
    let default_item = |locale: Locale| td_string!(locale, page.default_item).to_owned();
    let controls = Controls::new(default_item(page_locale.get_untracked()));
    // What is bought reads in the page's language too, unless the learner typed it.
    Effect::new(move |before: Option<Locale>| {
        let now = page_locale.get();
        if let Some(before) = before
            && controls.item.get_untracked() == default_item(before)
        {
            controls.item.set(default_item(now));
        }
        now
    });
    let first = Pane::new("pane-1", DEFAULT_PANES[0]);
    let second = Pane::new("pane-2", DEFAULT_PANES[1]);
    let purchases = StoredValue::new(Purchases::default());
    let steps_live = RwSignal::new(false);
    crate::live_steps::listen(&lab.get_value(), [first, second], purchases, steps_live);
    let busy = RwSignal::new(false);
    let status = RwSignal::new(Status::Idle);
    let explanation = RwSignal::new(None::<&'static Preset>);
    let large_text = RwSignal::new(false);
    // The shared time axis: ms since the run started, ticking while it runs.
    let now = RwSignal::new(0.0);
    let span = Signal::derive(move || {
        let now = now.get();
        first.attempts.with(|a| {
            second
                .attempts
                .with(|b| timeline::span_ms(a.iter().chain(b), now))
        })
    });

    let to_scale = RwSignal::new(false);
    let run_axis = RunAxis::of([first, second], to_scale);
    let playback = Playback::new(run_axis.moments, to_scale);
    Results {
        purchases,
        span_ms: span,
        now_ms: now.into(),
        steps_live: steps_live.into(),
        busy: busy.into(),
        axis: run_axis,
        playback,
    }
    .provide();

    spawn_local(async move {
        let lab = lab.get_value();
        join(first.refresh(&lab), second.refresh(&lab)).await;
    });

    // The guided lesson: where the learner is, from the link.
    let guided = Lesson::from_link(lab.get_value());
    guided.watch_runs([first, second]);
    // The last run's permalink, once saved.
    let saved = RwSignal::new(None::<Result<String, api::ApiError>>);

    // From a scenario (`true`), the results are scrolled into view once the run is over.
    let place_order = move |from_scenario: bool| {
        if busy.get_untracked() {
            return;
        }
        let item = controls.item.get_untracked().trim().to_owned();
        let Some(amount_cents) = parse_money(&controls.amount.get_untracked()) else {
            status.set(Status::AmountInvalid);
            return;
        };
        let order = NewOrder { item, amount_cents };
        if let Err(invalid) = order.validate() {
            status.set(Status::InvalidOrder(invalid));
            return;
        }
        let policy = controls.policy();
        saved.set(None);
        playback.show_all();
        busy.set(true);
        status.set(Status::Sending {
            copies: policy.copies,
        });
        let started_at = now_ms();
        now.set(0.0);
        let ticker = set_interval_with_handle(
            move || now.set(now_ms() - started_at),
            std::time::Duration::from_millis(100),
        )
        .ok();
        spawn_local(async move {
            let context = RunContext {
                lab: lab.get_value(),
                order,
                policy,
                purchases,
                started_at,
                status,
                steps_live,
                lesson_step: guided.step.get_untracked().map(|index| index as u8 + 1),
                saved,
            };
            run_purchase(context, [first, second]).await;
            if let Some(ticker) = ticker {
                ticker.clear();
            }
            now.set(now_ms() - started_at);
            if from_scenario {
                bring_the_results_into_view();
            }
            status.set(Status::Done);
            busy.set(false);
        });
    };

    let reset = move |_| {
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        spawn_local(async move {
            let lab = lab.get_value();
            // Every server, shown or not: one switched to later starts empty too.
            let cleared = join_all(
                Design::ALL
                    .into_iter()
                    .map(|design| api::clear_orders(design, &lab)),
            )
            .await;
            purchases.update_value(Purchases::clear);
            first.forget_run();
            second.forget_run();
            explanation.set(None);
            join(first.refresh(&lab), second.refresh(&lab)).await;
            status.set(match cleared.into_iter().collect::<Result<(), _>>() {
                Ok(()) => Status::ResetDone,
                Err(error) => Status::ResetFailed(error),
            });
            busy.set(false);
        });
    };

    // Each lesson step sets the client and the panes it runs.
    Effect::new(move |before: Option<Option<usize>>| {
        let step = guided.step.get();
        match step {
            Some(index) => {
                if let Some(run) = lesson::steps()[index].run().cloned() {
                    controls.show(&run.policy);
                    let lab = lab.get_value();
                    first.switch_to(run.panes[0], &lab);
                    second.switch_to(run.panes[1], &lab);
                }
                first.forget_run();
                second.forget_run();
                explanation.set(None);
            }
            // Back from the lesson, the free lab's controls start as the page opens
            // (on opening, they already are: a learner may have changed them by now).
            None if before.flatten().is_some() => controls.form.set(ClientForm::default()),
            None => {}
        }
        step
    });
    let run_lesson_step = Callback::new(move |_index: usize| place_order(false));

    let presets = PRESETS
        .iter()
        .map(|preset| {
            let run = move |_| {
                if busy.get_untracked() {
                    return;
                }
                controls.show(&preset.policy);
                let [left, right] = preset.panes;
                let lab = lab.get_value();
                first.switch_to(left, &lab);
                second.switch_to(right, &lab);
                explanation.set(Some(preset));
                place_order(true);
            };
            view! {
                <button type="button" class="preset" id=format!("preset-{}", preset.id) disabled=busy on:click=run>
                    {say(preset.name)}
                </button>
            }
        })
        .collect_view();

    // The lab's secret is already in the URL (see `current_lab`), so this link reopens this lab.
    let lab_link = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default();
    let lab_id_text = lab.get_value().lab_id().to_string();
    // The scheduler is in the viewer's bundle; the fragment keeps the lab.
    let scheduler_link = format!("/scheduler#secret={}", lab.get_value().as_str());

    // The page's heading and introduction are index.html's own, painted
    // before this started (in both languages; the page's `lang` picks one).
    enlarge_the_page_with(large_text);
    view! {
            <div class="display-options">
                <div class="field check display">
                    <input
                        type="checkbox"
                        id="large-text"
                        prop:checked=large_text
                        on:change=move |ev| large_text.set(event_target_checked(&ev))
                    />
                    <label for="large-text">{say(|l| td_string!(l, page.large_text).to_string())}</label>
                </div>
                <LanguageField />
            </div>

            <LessonBanner lesson=guided />

            <section class="presets" id="presets" aria-labelledby="presets-title" class:hidden=move || guided.step.get().is_some()>
                <h2 id="presets-title">{say(|l| td_string!(l, page.scenarios).to_string())}</h2>
                <p class="hint">{say(|l| td_string!(l, page.scenarios_hint).to_string())}</p>
                <div class="preset-buttons">{presets}</div>
                <p class="scheduler-link">
                    <a href=scheduler_link id="open-scheduler">{say(|l| td_string!(l, scheduler.open).to_string())}</a>
                    " " {say(|l| td_string!(l, scheduler.open_hint).to_string())}
                </p>
                {move || explanation.get().map(|preset| {
                    let name = (preset.name)(locale());
                    view! {
                        <div class="explanation" role="note">
                            <h3>{td_string!(locale(), page.what_to_notice, name = name).to_string()}</h3>
                            <p>{(preset.explanation)(locale())}</p>
                        </div>
                    }
                })}
            </section>

            // In the lesson, the card stands beside the results on a wide
            // screen, so its result and both pictures are seen together.
            <div class="workbench" class:guided=move || guided.step.get().is_some()>
            <LessonCard lesson=guided panes=[first, second] run=run_lesson_step />
            <details class="setup" id="setup" class:hidden=move || guided.step.get().is_some()>
            <summary id="setup-toggle">{say(|l| td_string!(l, page.set_up).to_string())}</summary>
            <form class="controls" on:submit=move |ev| {
                ev.prevent_default();
                place_order(false);
            }>
                <fieldset>
                    <legend>{say(|l| td_string!(l, page.the_client).to_string())}</legend>
                    {form_fields(FieldGroup::Client, controls.form)}
                </fieldset>
                <fieldset>
                    <legend>{say(|l| td_string!(l, page.the_server).to_string())}</legend>
                    {form_fields(FieldGroup::Server, controls.form)}
                </fieldset>
                <fieldset>
                    <legend>{say(|l| td_string!(l, page.the_servers).to_string())}</legend>
                    <DesignField
                        id="first-pane"
                        label=|locale| td_string!(locale, page.first_pane).into()
                        hint=|locale| td_string!(locale, page.first_pane_hint).into()
                        value=first.design
                        taken=second.design
                        disabled=busy
                        on_choose=Callback::new(move |design| first.switch_to(design, &lab.get_value()))
                    />
                    <DesignField
                        id="second-pane"
                        label=|locale| td_string!(locale, page.second_pane).into()
                        hint=|locale| td_string!(locale, page.second_pane_hint).into()
                        value=second.design
                        taken=first.design
                        disabled=busy
                        on_choose=Callback::new(move |design| second.switch_to(design, &lab.get_value()))
                    />
                </fieldset>
                <fieldset>
                    <legend>{say(|l| td_string!(l, page.the_order).to_string())}</legend>
                    <TextField
                        id="item"
                        label=|locale| td_string!(locale, page.item).into()
                        hint=|locale| td_string!(locale, page.item_hint).into()
                        value=controls.item
                    />
                    <TextField
                        id="amount"
                        label=|locale| td_string!(locale, page.amount).into()
                        hint=|locale| td_string!(locale, page.amount_hint).into()
                        value=controls.amount
                        inputmode="decimal"
                    />
                </fieldset>
                <div class="buttons">
                    <button type="submit" id="place-order" disabled=busy>{say(|l| td_string!(l, page.place_order).to_string())}</button>
                    <button type="button" id="reset" class="secondary" disabled=busy on:click=reset>
                        {say(|l| td_string!(l, page.reset).to_string())}
                    </button>
                </div>
            </form>
            </details>

            <div class="results" id="results">

            <p class="status" role="status" aria-live="polite" data-state=move || status.with(Status::state)>
                {say(move |locale| status.with(|status| status.text(locale)))}
            </p>
            <SavedRunLink saved=saved />
            <RunResults panes=[first, second] />
            </div>
            </div>

            <ReceivingSide lab=lab hidden=Signal::derive(move || guided.step.get().is_some()) />
            <footer>
                {move || {
                    let lab_link = lab_link.clone();
                    td!(
                        locale(),
                        page.footer,
                        lab = lab_id_text.clone(),
                        <code> = <code />,
                        <link> = move |children: ChildrenFn| view! { <a href=lab_link.clone()>{children()}</a> }
                    )
                }}
            </footer>
    }
}

/// Keeps the page's `<main>` (index.html's, which the lab is drawn into)
/// large while `large_text` is on.
fn enlarge_the_page_with(large_text: RwSignal<bool>) {
    Effect::new(move || {
        let large = large_text.get();
        if let Some(main) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(LAB_ELEMENT))
        {
            let _ = main.class_list().toggle_with_force("large", large);
        }
    });
}

/// The controls of one fieldset, in the table's order.
fn form_fields(group: FieldGroup, form: RwSignal<ClientForm>) -> impl IntoView {
    fields_of(group)
        .map(|field| view! { <FormFieldView field=field form=form /> })
        .collect_view()
}

/// Scrolls so the replay controls, both verdicts and both diagrams fill the
/// screen: a scenario is pressed at the top of the page and plays out below.
fn bring_the_results_into_view() {
    if let Some(results) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("playback"))
    {
        results.scroll_into_view_with_bool(true);
    }
}
