//! Replaying a finished run: Replay at a chosen speed, one event back or
//! forward, a time slider, and the J / K / L keys. Both panes follow the
//! one playhead, on the run's shared time axis; what they show at it comes
//! from [`lab_client::playback`].

use gloo_timers::callback::Interval;
use lab_client::playback::{BEFORE_START, DEFAULT_SPEED, next_moment, previous_moment};
use leptos::prelude::*;

use crate::runner::now_ms;

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
    pub moments: Signal<Vec<f64>>,
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
