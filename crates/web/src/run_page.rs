//! The page at a run's permalink (`/runs/ID`), which draws the run again
//! from what was saved — the same attempts, steps, orders and verdicts,
//! with the replay — without sending anything. `?projector` (or its
//! switch) makes the type large and the panes fill the screen.

use lab_client::record::RunRecord;
use lab_client::{money, timeline};
use lab_i18n::i18n::td_string;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::{self, ApiError};
use crate::language::LanguageField;
use crate::playback::Playback;
use crate::results::Results;
use crate::results_view::RunResults;
use crate::run_axis::RunAxis;
use crate::state::{Pane, RunSummary};
use crate::url::search_params;
use crate::words::say;

/// What the permalink page knows about its run.
#[derive(Clone)]
enum Loaded {
    Loading,
    Found(Box<(RunRecord, i64)>),
    Failed(ApiError),
}

/// The page of the saved run `id`.
#[component]
pub fn RunPage(id: String) -> impl IntoView {
    let first = Pane::new("pane-1", lab_client::DEFAULT_PANES[0]);
    let second = Pane::new("pane-2", lab_client::DEFAULT_PANES[1]);
    let purchases = StoredValue::new(lab_client::Purchases::default());
    let loaded = RwSignal::new(Loaded::Loading);
    let projector = RwSignal::new(search_params().is_some_and(|p| p.has("projector")));
    let span = Signal::derive(move || {
        first.attempts.with(|a| {
            second
                .attempts
                .with(|b| timeline::span_ms(a.iter().chain(b), 0.0))
        })
    });
    let to_scale = RwSignal::new(false);
    let run_axis = RunAxis::of([first, second], to_scale);
    let playback = Playback::new(run_axis.moments, to_scale);
    spawn_local(async move {
        match api::fetch_run(&id).await {
            Ok(fetched) => {
                show(&fetched.run, [first, second], purchases);
                let saved_at = fetched.saved_at.micros();
                loaded.set(Loaded::Found(Box::new((fetched.run, saved_at))));
            }
            Err(error) => loaded.set(Loaded::Failed(error)),
        }
    });
    // A saved run is over: its clock stands at its end, nothing is live or busy.
    Results {
        purchases,
        span_ms: span,
        now_ms: span,
        steps_live: Signal::derive(|| true),
        busy: Signal::derive(|| false),
        axis: run_axis,
        playback,
    }
    .provide();
    let state = move || {
        loaded.with(|l| match l {
            Loaded::Loading => "loading",
            Loaded::Found(_) => "found",
            Loaded::Failed(ApiError::Status(404)) => "missing",
            Loaded::Failed(ApiError::Unreadable(_)) => "unreadable",
            Loaded::Failed(_) => "failed",
        })
    };
    view! {
        <main class:large=projector class:projector=projector data-run=state>
            <header class="intro">
                <h1>{say(|l| td_string!(l, run.title).to_owned())}</h1>
                <p>{say(move |l| loaded.with(|loaded| match loaded {
                    Loaded::Loading => td_string!(l, run.loading).to_owned(),
                    Loaded::Found(found) => about(&found.0, found.1, l),
                    Loaded::Failed(ApiError::Status(404)) => td_string!(l, run.not_found).to_owned(),
                    Loaded::Failed(ApiError::Unreadable(detail)) => {
                        td_string!(l, run.unreadable, error = detail)
                    }
                    Loaded::Failed(error) => td_string!(l, run.failed, error = error.text(l)),
                }))}</p>
                <div class="display-options">
                    <div class="field check display">
                        <input type="checkbox" id="projector" prop:checked=projector
                            on:change=move |ev| projector.set(event_target_checked(&ev)) />
                        <label for="projector">{say(|l| td_string!(l, run.projector).to_owned())}</label>
                    </div>
                    <LanguageField />
                    <a href="/" class="open-lab">{say(|l| td_string!(l, run.open_lab).to_owned())}</a>
                </div>
            </header>
            // Drawn once the run is here, not before: panes filling in would
            // push one another down the screen as the browser paints them.
            {move || loaded.with(|l| matches!(l, Loaded::Found(_))).then(|| view! {
                <div class="results" id="results">
                    <RunResults panes=[first, second] />
                </div>
            })}
        </main>
    }
}

/// Puts the saved run into the two panes, as the run left them.
fn show(run: &RunRecord, panes: [Pane; 2], purchases: StoredValue<lab_client::Purchases>) {
    purchases.set_value(lab_client::record::purchases_of(run));
    for (pane, saved) in panes.into_iter().zip(&run.panes) {
        pane.design.set(saved.server);
        pane.attempts.set(saved.attempts.clone());
        pane.steps.set(saved.steps.clone());
        pane.steps_missed.set(saved.steps_missed);
        pane.orders.set(saved.orders.clone());
        pane.verdict.set(Some(RunSummary {
            design: saved.server,
            policy: run.policy.clone(),
            attempts: saved.attempts.clone(),
            orders: saved.orders_of_run as usize,
            amount_cents: run.order.amount_cents,
            effects: saved.effects,
        }));
    }
}

/// What was run, and when, in `locale`'s words.
fn about(run: &RunRecord, saved_at_us: i64, locale: lab_client::Locale) -> String {
    let mut text = td_string!(
        locale,
        run.about,
        item = &run.order.item,
        price = money(run.order.amount_cents),
        time = lab_client::clock_time(saved_at_us)
    );
    if let Some(step) = run.lesson_step {
        text.push(' ');
        text.push_str(&td_string!(locale, run.lesson_step, step = step));
    }
    text
}
