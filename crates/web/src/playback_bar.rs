//! The replay's controls: the bar that plays, pauses and steps the
//! playhead (and J, K, L on the keyboard), and how the steps are drawn.

use lab_client::Num;
use lab_client::playback::{BEFORE_START, DEFAULT_SPEED, SPEEDS};
use lab_i18n::i18n::td_string;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::playback::Playback;
use crate::results::Results;
use crate::words::say;

/// The controls, shown once a run is over.
#[component]
pub fn PlaybackBar() -> impl IntoView {
    let Results { playback, busy, .. } = Results::of_page();
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
pub(crate) fn is_typing(ev: &web_sys::KeyboardEvent) -> bool {
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
pub fn DiagramOptions() -> impl IntoView {
    let playback = Results::of_page().playback;
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
