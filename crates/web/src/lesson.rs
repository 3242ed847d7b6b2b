//! The guided lesson on the page: one card per step of
//! [`lab_client::lesson`], above the two panes. The learner reads what will
//! happen, predicts, runs it on the real servers and reads the prediction
//! beside what happened. The step is in the link (`?lesson=3`), so a reload
//! or a shared link lands on it.

use lab_client::lesson::markup::{self, ids};
use lab_client::lesson::{Guess, LESSON_STEPS, step_from_link, steps};
use lab_i18n::i18n::td_string;
use lab_wire::LabSecret;
use lab_wire::workshop::{LessonProgress, Prediction};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::api;
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
    /// The lab, whose progress the server records for the teacher.
    lab: StoredValue<LabSecret>,
}

impl Lesson {
    /// The lesson as the page's link opens it: at the step `?lesson=` names, if any.
    pub fn from_link(lab: LabSecret) -> Self {
        let step = search_params()
            .and_then(|params| params.get(LESSON_PARAM))
            .and_then(|value| step_from_link(&value));
        Self {
            step: RwSignal::new(step),
            predictions: RwSignal::new([None; LESSON_STEPS]),
            results: RwSignal::new([None; LESSON_STEPS]),
            running: RwSignal::new(None),
            lab: StoredValue::new(lab),
        }
        .reported()
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
            let Some(run) = steps()[step].run.clone() else {
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
pub fn LessonCard(
    lesson: Lesson,
    panes: [Pane; 2],
    #[prop(into)] busy: Signal<bool>,
    run: Callback<usize>,
) -> impl IntoView {
    move || {
        lesson
            .step
            .get()
            .map(|index| step_card(lesson, index, panes, busy, run))
    }
}

/// One step's card: its markup (redrawn with the language), the states
/// that change while it is shown set on its elements, and one listener for
/// its clicks and one for its radio buttons.
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
    let card = move || {
        markup::card(
            &steps()[index],
            index,
            predictions.with_untracked(|p| p[index]),
            locale.get(),
        )
    };
    // What happened, or on the closing step the score: built from what was recorded.
    let outcome = move || {
        let step = &steps()[index];
        let Some(asked) = &step.run else {
            let paired: Vec<_> = predictions
                .with(|p| results.with(|r| (0..LESSON_STEPS).map(|i| p[i].zip(r[i])).collect()));
            return markup::closing(step, &paired, locale.get());
        };
        let (Some(orders), Some(guess)) = (result(), predicted()) else {
            return String::new();
        };
        let verdict = panes[asked.asks_about]
            .verdict
            .with(|summary| summary.as_ref().map(|s| s.verdict(locale.get())))
            .unwrap_or_default();
        markup::result(step, asked, guess, orders, &verdict, locale.get())
    };
    let last = index + 1 == LESSON_STEPS;
    // Runs after the card is drawn (and again when it is redrawn in another language).
    Effect::new(move || {
        locale.track();
        let busy = busy.get();
        let ran = result().is_some();
        let predicted = predicted().is_some();
        set_flag(ids::PREDICTION, "disabled", busy);
        for guess in Guess::ALL {
            set_flag(
                &format!("{}{}", ids::GUESS_PREFIX, guess.id()),
                "disabled",
                ran,
            );
        }
        set_flag(ids::RUN, "disabled", busy || !predicted);
        set_flag(ids::HINT, "hidden", predicted);
        set_flag(ids::BACK, "disabled", busy || index == 0);
        set_flag(ids::NEXT, "disabled", busy || last);
        set_flag(ids::LEAVE, "disabled", busy);
        if let Some(place) = element(ids::OUTCOME) {
            place.set_inner_html(&outcome());
        }
    });
    let on_click = move |ev: leptos::ev::MouseEvent| match target_id(&ev).as_str() {
        ids::RUN if predicted().is_some() && !busy.get_untracked() => {
            lesson.start_run(index, panes);
            run.run(index);
        }
        ids::BACK => lesson.go_to(Some(index.saturating_sub(1))),
        ids::NEXT if !last => lesson.go_to(Some(index + 1)),
        ids::LEAVE => lesson.go_to(None),
        _ => {}
    };
    let on_change = move |ev: leptos::ev::Event| {
        if let Some(guess) = markup::guess_of_id(&target_id(&ev)) {
            predictions.update(|p| p[index] = Some(guess));
        }
    };
    view! {
        <section class="lesson" id="lesson" aria-labelledby="lesson-title" inner_html=card on:click=on_click on:change=on_change></section>
    }
}

/// The element of the page whose id is `id`.
fn element(id: &str) -> Option<web_sys::Element> {
    web_sys::window()?.document()?.get_element_by_id(id)
}

/// Sets or removes a boolean attribute (`disabled`, `hidden`) of `#id`.
fn set_flag(id: &str, attribute: &str, on: bool) {
    if let Some(element) = element(id) {
        let _ = if on {
            element.set_attribute(attribute, "")
        } else {
            element.remove_attribute(attribute)
        };
    }
}

/// The id of the element an event happened on.
fn target_id(ev: &web_sys::Event) -> String {
    ev.target()
        .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
        .map(|element| element.id())
        .unwrap_or_default()
}
