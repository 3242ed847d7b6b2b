//! Replaying a finished run: Replay at a chosen speed, one event back or
//! forward, a time slider, and the J / K / L keys. Both panes follow the
//! one playhead, on the run's shared time axis; what they show at it comes
//! from [`lab_client::playback`].

use gloo_timers::callback::Interval;
use lab_client::Num;
use lab_client::playback::{BEFORE_START, DEFAULT_SPEED, SPEEDS, next_moment, previous_moment};
use lab_i18n::i18n::td_string;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::runner::now_ms;
use crate::words::say;

/// How often a replay moves its playhead.
const FRAME_MS: u32 = 40;

/// The playhead both panes follow.
#[derive(Clone, Copy)]
pub struct Playback {
    /// Milliseconds on the run's axis, or `None`: the whole run is shown.
    pub playhead: RwSignal<Option<f64>>,
    pub playing: RwSignal<bool>,
    pub speed: RwSignal<f64>,
    /// Whether the steps are shown as the table instead of the picture.
    pub as_table: RwSignal<bool>,
    /// Whether long waits are drawn to scale instead of folded.
    pub to_scale: RwSignal<bool>,
    /// The moment of each event of the run, both panes and the client's
    /// sends and answers together, in order.
    moments: Signal<Vec<f64>>,
    ticker: StoredValue<Option<Interval>, LocalStorage>,
}

impl Playback {
    pub fn new(moments: Signal<Vec<f64>>, to_scale: RwSignal<bool>) -> Self {
        Self {
            playhead: RwSignal::new(None),
            playing: RwSignal::new(false),
            speed: RwSignal::new(DEFAULT_SPEED),
            as_table: RwSignal::new(false),
            to_scale,
            moments,
            ticker: StoredValue::new_local(None),
        }
    }

    /// The last moment of the run.
    fn end(self) -> f64 {
        self.moments
            .with_untracked(|m| m.last().copied())
            .unwrap_or(0.0)
    }

    /// Back to showing everything, as after a run (a new run calls this).
    pub fn show_all(self) {
        self.pause();
        self.playhead.set(None);
    }

    pub fn pause(self) {
        self.stop_ticking();
        self.playing.set(false);
    }

    fn stop_ticking(self) {
        self.ticker.update_value(|ticker| drop(ticker.take()));
    }

    /// Plays from where the playhead is (from the start if the run is
    /// shown whole), at the chosen speed, up to the end.
    pub fn play(self) {
        let end = self.end();
        let from = match self.playhead.get_untracked() {
            Some(at) if at < end => at,
            _ => BEFORE_START,
        };
        self.stop_ticking();
        self.playhead.set(Some(from));
        self.playing.set(true);
        let mut last = now_ms();
        let interval = Interval::new(FRAME_MS, move || {
            let now = now_ms();
            let at = self.playhead.get_untracked().unwrap_or(BEFORE_START)
                + (now - last) * self.speed.get_untracked();
            last = now;
            if at >= end {
                self.playing.set(false);
                self.playhead.set(None);
                // Not from inside its own callback: dropping an interval
                // frees the closure that is running.
                leptos::task::spawn_local(async move { self.stop_ticking() });
            } else {
                self.playhead.set(Some(at));
            }
        });
        self.ticker.set_value(Some(interval));
    }

    pub fn toggle(self) {
        if self.playing.get_untracked() {
            self.pause();
        } else {
            self.play();
        }
    }

    /// One event back; from the whole run, the last event is hidden.
    pub fn back(self) {
        self.pause();
        let at = self.playhead.get_untracked().unwrap_or_else(|| self.end());
        let moments = self.moments.get_untracked();
        self.playhead.set(Some(previous_moment(&moments, at)));
    }

    /// One event forward; at the last one, the whole run again.
    pub fn forward(self) {
        self.pause();
        let Some(at) = self.playhead.get_untracked() else {
            return;
        };
        let next = next_moment(&self.moments.get_untracked(), at);
        self.playhead
            .set(if next >= self.end() { None } else { Some(next) });
    }
}

/// The controls, shown once a run is over.
#[component]
pub fn PlaybackBar(playback: Playback, #[prop(into)] busy: Signal<bool>) -> impl IntoView {
    let Playback {
        playhead,
        playing,
        speed,
        ..
    } = playback;
    let end = move || playback.moments.with(|m| m.last().copied()).unwrap_or(0.0);
    let idle = move || busy.get() || playback.moments.with(Vec::is_empty);
    listen_for_keys(playback, busy);
    let at_words = say(move |locale| match playhead.get() {
        None => td_string!(locale, playback.whole_run).to_owned(),
        Some(ms) if ms < 0.0 => td_string!(locale, playback.before_start).to_owned(),
        Some(ms) => td_string!(locale, playback.at, ms = format!("{:.0}", Num(ms))),
    });
    let speeds = SPEEDS
        .iter()
        .enumerate()
        .map(|(index, (s, name))| view! { <option value=index selected=move || speed.get() == *s>{*name}</option> })
        .collect_view();
    view! {
        <section class="playback" id="playback" aria-labelledby="playback-title" class:hidden=move || playback.moments.with(Vec::is_empty)>
            <h2 id="playback-title" class="visually-hidden">{say(|l| td_string!(l, playback.title).to_owned())}</h2>
            <div class="playback-row">
                <button type="button" id="replay" disabled=idle on:click=move |_| playback.toggle() aria-keyshortcuts="K">
                    {say(move |l| if playing.get() { td_string!(l, playback.pause).to_owned() } else { td_string!(l, playback.replay).to_owned() })}
                </button>
                <label for="replay-speed">{say(|l| td_string!(l, playback.speed).to_owned())}</label>
                <select id="replay-speed" on:change=move |ev| {
                    let chosen = event_target_value(&ev).parse::<usize>().ok().and_then(|index| SPEEDS.get(index));
                    speed.set(chosen.map_or(DEFAULT_SPEED, |(s, _)| *s));
                }>
                    {speeds}
                </select>
                <button type="button" id="step-back" disabled=idle on:click=move |_| playback.back() aria-keyshortcuts="J">
                    {say(|l| td_string!(l, playback.back).to_owned())}
                </button>
                <button type="button" id="step-forward" disabled=move || idle() || playhead.get().is_none() on:click=move |_| playback.forward() aria-keyshortcuts="L">
                    {say(|l| td_string!(l, playback.forward).to_owned())}
                </button>
                <label for="playback-time">{say(|l| td_string!(l, playback.time).to_owned())}</label>
                <input
                    type="range"
                    id="playback-time"
                    min=format!("{}", Num(BEFORE_START))
                    max=move || format!("{:.0}", Num(end().ceil()))
                    step="1"
                    disabled=idle
                    aria-valuetext=at_words
                    prop:value=move || format!("{:.0}", Num(playhead.get().unwrap_or_else(end).ceil()))
                    on:input=move |ev| {
                        playback.pause();
                        // The slider moves in whole milliseconds.
                        let at = event_target_value(&ev).parse::<i64>().map_or(BEFORE_START, |ms| ms as f64);
                        playhead.set(if at >= end() { None } else { Some(at) });
                    }
                />
                <output for="playback-time" id="playback-at">{at_words}</output>
                <p class="hint">{say(|l| td_string!(l, playback.keys).to_owned())}</p>
            </div>
        </section>
    }
}

/// J, K and L anywhere on the page, except while typing in a field.
fn listen_for_keys(playback: Playback, busy: Signal<bool>) {
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() || busy.get_untracked() {
            return;
        }
        if playback.moments.with_untracked(Vec::is_empty) || is_typing(&ev) {
            return;
        }
        match ev.key().as_str() {
            "j" | "J" => playback.back(),
            "k" | "K" => playback.toggle(),
            "l" | "L" => playback.forward(),
            _ => return,
        }
        ev.prevent_default();
    });
    on_cleanup(move || handle.remove());
}

/// Whether the key went to a field that takes text.
fn is_typing(ev: &web_sys::KeyboardEvent) -> bool {
    let Some(target) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return false;
    };
    match target.tag_name().as_str() {
        "TEXTAREA" | "SELECT" => true,
        "INPUT" => !matches!(
            target.get_attribute("type").as_deref(),
            Some("range" | "checkbox" | "radio" | "button")
        ),
        _ => false,
    }
}

/// How the steps are drawn: the picture or its table, long waits folded or
/// to scale.
#[component]
pub fn DiagramOptions(playback: Playback) -> impl IntoView {
    let Playback {
        as_table, to_scale, ..
    } = playback;
    view! {
        <div class="diagram-options" class:hidden=move || playback.moments.with(Vec::is_empty)>
            <fieldset class="show-as">
                <legend>{say(|l| td_string!(l, playback.show_as).to_owned())}</legend>
                <input type="radio" id="show-picture" name="show-as" prop:checked=move || !as_table.get() on:change=move |_| as_table.set(false) />
                <label for="show-picture">{say(|l| td_string!(l, playback.picture).to_owned())}</label>
                <input type="radio" id="show-table" name="show-as" prop:checked=as_table on:change=move |_| as_table.set(true) />
                <label for="show-table">{say(|l| td_string!(l, playback.table).to_owned())}</label>
            </fieldset>
            <div class="field check">
                <input type="checkbox" id="to-scale" prop:checked=to_scale on:change=move |ev| to_scale.set(event_target_checked(&ev)) />
                <label for="to-scale">{say(|l| td_string!(l, playback.to_scale).to_owned())}</label>
            </div>
        </div>
    }
}
