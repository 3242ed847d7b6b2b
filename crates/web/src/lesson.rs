//! The guided lesson on the page: one card per step of
//! [`lab_client::lesson`], above the two panes. The learner reads what will
//! happen, predicts, runs it on the real servers and reads the prediction
//! beside what happened. The step is in the link (`?lesson=3`), so a reload
//! or a shared link lands on it.

use lab_client::lesson::card::{self, Outcome, card_words};
use lab_client::lesson::{Activity, Guess, LESSON_STEPS, step_from_link, steps};
use lab_client::scheduler::{Challenge, ChallengeText, schedule_link};
use lab_i18n::i18n::td_string;
use lab_wire::LabSecret;
use lab_wire::workshop::{LessonProgress, Prediction};
use leptos::prelude::*;

use crate::api;
use crate::challenge_store;
use crate::results::Results;
use crate::state::Pane;
use crate::url::{replace_search, search_params};
use crate::words::{say, use_locale};

/// The URL parameter that names the step.
const LESSON_PARAM: &str = "lesson";

/// Where the learner is in the lesson and what they predicted.
#[derive(Clone, Copy)]
pub struct Lesson {
    /// The step shown (from 0), or `None`: the free lab.
    pub step: RwSignal<Option<usize>>,
    /// The prediction made at each step.
    pub predictions: RwSignal<[Option<Guess>; LESSON_STEPS]>,
    /// How many orders the asked server held after each step's run.
    pub results: RwSignal<[Option<usize>; LESSON_STEPS]>,
    /// The step whose run is under way.
    running: RwSignal<Option<usize>>,
    /// The scheduler's challenges met, as the browser remembers them.
    pub challenges: RwSignal<Vec<Challenge>>,
    /// The lab, whose progress the server records for the teacher.
    lab: StoredValue<LabSecret>,
}

impl Lesson {
    /// The lesson as the page's link opens it: at the step `?lesson=` names, if any.
    pub fn from_link(lab: LabSecret) -> Self {
        let step = search_params()
            .and_then(|params| params.get(LESSON_PARAM))
            .and_then(|value| step_from_link(&value));
        let challenges = RwSignal::new(challenge_store::stored(&lab).met);
        // The scheduler, in another tab, meets them: follow, and tell the teacher.
        challenge_store::follow(&lab, move |stored| challenges.set(stored.met));
        let lesson = Self {
            step: RwSignal::new(step),
            predictions: RwSignal::new([None; LESSON_STEPS]),
            results: RwSignal::new([None; LESSON_STEPS]),
            running: RwSignal::new(None),
            challenges,
            lab: StoredValue::new(lab),
        };
        Effect::new(move |before: Option<usize>| {
            let met = challenges.with(Vec::len);
            if before.is_some_and(|before| before != met) {
                lesson.report();
            }
            met
        });
        lesson.reported()
    }

    /// The lesson, reported if a link opened it at a step.
    fn reported(self) -> Self {
        self.report();
        self
    }

    /// Tells the server where the lab is in the lesson and what it
    /// predicted, for the teacher's view. A failure only costs the teacher
    /// a stale row; the lesson goes on.
    fn report(self) {
        let Some(step) = self.step.get_untracked() else {
            return;
        };
        let predictions = self.predictions.get_untracked();
        let results = self.results.get_untracked();
        let progress = LessonProgress {
            step: step as u8 + 1,
            predictions: (0..LESSON_STEPS)
                .filter_map(|i| {
                    let (guess, orders) = predictions[i].zip(results[i])?;
                    Some(Prediction {
                        step: i as u8 + 1,
                        guess: guess.recorded(),
                        orders: orders as u32,
                    })
                })
                .collect(),
            challenges: self.challenges.get_untracked(),
        };
        let lab = self.lab.get_value();
        leptos::task::spawn_local(async move {
            let _ = api::save_progress(&lab, &progress).await;
        });
    }

    /// Shows step `step` (or leaves the lesson), and puts it in the link.
    pub fn go_to(self, step: Option<usize>) {
        self.step.set(step);
        self.report();
        let Some(params) = search_params() else {
            return;
        };
        match step {
            Some(step) => params.set(LESSON_PARAM, &(step + 1).to_string()),
            None => params.delete(LESSON_PARAM),
        }
        replace_search(&params);
    }

    /// Records the asked server's orders once the run of `panes` that
    /// [`Self::start_run`] began has ended.
    pub fn watch_runs(self, panes: [Pane; 2]) {
        Effect::new(move || {
            let Some(step) = self.running.get() else {
                return;
            };
            let Some(run) = steps()[step].run().cloned() else {
                return;
            };
            let orders = panes[run.asks_about]
                .verdict
                .with(|summary| summary.as_ref().map(|summary| summary.orders));
            if let Some(orders) = orders {
                self.results.update(|results| results[step] = Some(orders));
                self.running.set(None);
                self.report();
            }
        });
    }

    /// Marks the start of `step`'s run; the panes' last run is forgotten
    /// first, so only this run's verdict can end it.
    fn start_run(self, step: usize, panes: [Pane; 2]) {
        for pane in panes {
            pane.forget_run();
        }
        self.running.set(Some(step));
    }
}

/// The invitation shown above the free lab.
#[component]
pub fn LessonBanner(lesson: Lesson) -> impl IntoView {
    view! {
        <section class="lesson-banner" class:hidden=move || lesson.step.get().is_some() aria-labelledby="lesson-banner-title">
            <h2 id="lesson-banner-title">{say(|l| td_string!(l, lesson.title).to_owned())}</h2>
            <p>{say(|l| td_string!(l, lesson.banner).to_owned())}</p>
            <button type="button" id="lesson-start" on:click=move |_| lesson.go_to(Some(0))>
                {say(|l| td_string!(l, lesson.start).to_owned())}
            </button>
        </section>
    }
}

/// The card of the step shown. `run` runs a step's client against its two
/// servers (the page's own "Place order").
#[component]
pub fn LessonCard(lesson: Lesson, panes: [Pane; 2], run: Callback<usize>) -> impl IntoView {
    let busy = Results::of_page().busy;
    move || {
        lesson
            .step
            .get()
            .map(|index| step_card(lesson, index, panes, busy, run))
    }
}

/// One step's card, drawn again when the language changes: its words
/// come from [`card_words`]; whether a control can be used and what
/// happened follow the lesson's signals.
fn step_card(
    lesson: Lesson,
    index: usize,
    panes: [Pane; 2],
    busy: Signal<bool>,
    run: Callback<usize>,
) -> impl IntoView {
    let locale = use_locale();
    let Lesson {
        predictions,
        results,
        ..
    } = lesson;
    let predicted = move || predictions.with(|p| p[index]);
    let result = move || results.with(|r| r[index]);
    let last = index + 1 == LESSON_STEPS;
    // What happened, or on the closing step the score: built from what was recorded.
    let outcome = move || {
        let step = &steps()[index];
        let asked = match &step.activity {
            Activity::Run(asked) => asked,
            // The scheduler's challenges say what happened there (see [`SchedulerTask`]).
            Activity::Scheduler => return None,
            Activity::Closing => {
                let paired: Vec<_> = predictions.with(|p| {
                    results.with(|r| (0..LESSON_STEPS).map(|i| p[i].zip(r[i])).collect())
                });
                return Some(card::closing(step, &paired, locale.get()));
            }
        };
        let (orders, guess) = result().zip(predicted())?;
        let verdict = panes[asked.asks_about]
            .verdict
            .with(|summary| summary.as_ref().map(|s| s.verdict(locale.get())))
            .unwrap_or_default();
        Some(card::outcome(
            step,
            asked,
            guess,
            orders,
            &verdict,
            locale.get(),
        ))
    };
    // Once the run's result is in, the card's result and the results beside
    // it are brought into view together.
    Effect::new(move |before: Option<bool>| {
        let shown = result().is_some();
        if shown && before == Some(false) {
            // After the card has drawn its result.
            request_animation_frame(bring_the_result_into_view);
        }
        shown
    });
    let start_run = move |_| {
        if predicted().is_some() && !busy.get_untracked() {
            lesson.start_run(index, panes);
            run.run(index);
        }
    };
    move || {
        let words = card_words(&steps()[index], index, locale.get());
        let prediction = words.prediction.map(|asked| {
            let guesses = asked
                .guesses
                .into_iter()
                .map(|(guess, label)| {
                    let id = format!("guess-{}", guess.id());
                    view! {
                        <div class="field check">
                            <input type="radio" name="prediction" id=id.clone() value=guess.id()
                                prop:checked=move || predicted() == Some(guess)
                                disabled=move || result().is_some()
                                on:change=move |_| predictions.update(|p| p[index] = Some(guess)) />
                            <label for=id>{label}</label>
                        </div>
                    }
                })
                .collect_view();
            view! {
                <fieldset class="prediction" disabled=busy>
                    <legend>{asked.question}</legend>
                    {guesses}
                </fieldset>
                <div class="buttons">
                    <button type="button" disabled=move || busy.get() || predicted().is_none() on:click=start_run>{asked.run}</button>
                    <p class="hint" hidden=move || predicted().is_some()>{asked.predict_first}</p>
                </div>
            }
        });
        view! {
            <section class="lesson" id="lesson" aria-labelledby="lesson-title">
                <p class="lesson-progress">
                    <span id="lesson-step-of">{words.step_of}</span>
                    <progress max=LESSON_STEPS value=index + 1 aria-labelledby="lesson-step-of"></progress>
                </p>
                <h2 id="lesson-title">{words.title}</h2>
                <p class="lesson-setup">{words.setup}</p>
                {prediction}
                {matches!(steps()[index].activity, Activity::Scheduler).then(|| view! { <SchedulerTask lesson=lesson /> })}
                <div aria-live="polite">{move || outcome().map(outcome_view)}</div>
                <nav class="lesson-nav" aria-label=words.progress>
                    <button type="button" class="secondary" disabled=move || busy.get() || index == 0
                        on:click=move |_| lesson.go_to(Some(index.saturating_sub(1)))>{words.back}</button>
                    <button type="button" disabled=move || busy.get() || last
                        on:click=move |_| lesson.go_to(Some(index + 1))>{words.next}</button>
                    <button type="button" class="secondary" disabled=busy
                        on:click=move |_| lesson.go_to(None)>{words.leave}</button>
                </nav>
            </section>
        }
    }
}

/// What happened after a run (or the closing score), as the card says it.
fn outcome_view(outcome: Outcome) -> impl IntoView {
    let Outcome {
        right,
        heading,
        comparison,
        verdict,
        takeaway,
    } = outcome;
    view! {
        <div class="lesson-result" data-right=right.map(|right| right.to_string())>
            {heading.map(|heading| view! { <h3>{heading}</h3> })}
            <p class="comparison">{comparison}</p>
            {verdict.map(|verdict| view! { <p>{verdict}</p> })}
            <p class="takeaway">{takeaway}</p>
        </div>
    }
}

/// Scrolls the results to the top of the screen (on a wide screen the
/// card stands beside them, held at the top), then the card's result into
/// view within it (on a phone, the card is above: that scrolls back to it).
fn bring_the_result_into_view() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if let Some(results) = document.get_element_by_id("results") {
        results.scroll_into_view_with_bool(true);
    }
    if let Ok(Some(result)) = document.query_selector(".lesson-result") {
        let options = web_sys::ScrollIntoViewOptions::new();
        options.set_block(web_sys::ScrollLogicalPosition::Nearest);
        result.scroll_into_view_with_scroll_into_view_options(&options);
    }
}

/// The scheduler step's task: the scheduler's page (in a new tab, so the
/// card stays), and its challenges as the browser has them, followed live.
#[component]
fn SchedulerTask(lesson: Lesson) -> impl IntoView {
    let lab = lesson.lab.get_value();
    let link = format!(
        "{}#secret={}",
        schedule_link(lab_client::Design::Naive, 2, ""),
        lab.as_str()
    );
    let met = move |challenge| lesson.challenges.with(|met| met.contains(&challenge));
    let items = Challenge::ALL
        .into_iter()
        .map(|challenge| {
            view! {
                <li class="challenge" data-challenge=challenge.name() data-met=move || met(challenge).to_string()>
                    <strong class="badge">{say(move |l| if met(challenge) { td_string!(l, scheduler.met).to_owned() } else { td_string!(l, scheduler.not_met).to_owned() })}</strong>
                    " " {say(move |l| challenge.task(l).to_owned())}
                </li>
            }
        })
        .collect_view();
    let count = move || lesson.challenges.with(Vec::len);
    let takeaway = steps()
        .into_iter()
        .find(|step| matches!(step.activity, Activity::Scheduler))
        .expect("the lesson has a scheduler step")
        .takeaway;
    view! {
        <p><a href=link target="_blank" rel="noopener" id="lesson-open-scheduler">{say(|l| td_string!(l, lesson.scheduler_open).to_owned())}</a></p>
        <ol class="challenges-met">{items}</ol>
        <div class="lesson-result" aria-live="polite" data-met=count>
            <p class="comparison">{say(move |l| td_string!(l, lesson.scheduler_met, count = count(), total = Challenge::ALL.len()))}</p>
            {move || (count() > 0).then(|| view! { <p class="takeaway">{say(takeaway)}</p> })}
        </div>
    }
}
