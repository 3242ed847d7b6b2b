//! A pane's sequence diagram as a picture: a lifeline for each request the
//! server received (every copy and every retry), one for the server and one
//! for the database; an arrow for each message (the request, each statement
//! with what it found, the answer) and a mark for each failure, top to
//! bottom on a time axis. This file only places things; the page draws them
//! as SVG and the tests below check the places.
//!
//! The time axis is shared by every pane of a run (the servers run in one
//! process, on one clock), so "at +305 ms" means the same moment on both
//! sides. Waits longer than [`LONGEST_GAP`] pixels can be folded into a
//! marked break, so a 2-second pause does not push the race off the screen.

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;
use lab_wire::{Step, StepKind};

use crate::sequence::{describe, tone};
use crate::short_key;
use crate::sorting::sort_by_number;

/// Room left of the first lifeline and right of the last, for their labels.
pub const MARGIN: f64 = 56.0;
/// Between two request lifelines.
pub const LANE_GAP: f64 = 72.0;
/// From the last request lifeline to the server's.
pub const CLIENT_TO_SERVER: f64 = 96.0;
/// From the server's lifeline to the database's: the statements' labels sit here.
pub const SERVER_TO_DATABASE: f64 = 260.0;
/// Where the first event sits (the headings are above it).
pub const TOP: f64 = 44.0;
/// Room below the last event.
pub const BOTTOM: f64 = 16.0;
/// The least room an event takes, so labels never overlap.
pub const ROW: f64 = 15.0;
/// Pixels per millisecond where time is drawn to scale.
pub const PX_PER_MS: f64 = 0.8;
/// A wait that would take more room than this is folded (see [`Scale::Folded`]).
pub const LONGEST_GAP: f64 = 96.0;
/// The room a folded wait takes.
pub const FOLDED_GAP: f64 = 30.0;
/// The tallest a diagram drawn to scale gets, whatever the run's length.
pub const TALLEST_TO_SCALE: f64 = 640.0;

/// How waits are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scale {
    /// Short waits to scale, long ones folded into a marked break.
    #[default]
    Folded,
    /// Every wait to scale, squeezed to fit [`TALLEST_TO_SCALE`].
    ToScale,
}

/// Whose lifeline it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// One HTTP request: a copy's attempt, as the server numbered it.
    Request,
    /// The order server.
    Server,
    /// The database.
    Database,
}

/// One vertical line.
#[derive(Debug, Clone, PartialEq)]
pub struct Lifeline {
    /// Whose it is.
    pub role: Role,
    /// Its heading, e.g. `Request 2`, `Server`, `Database`.
    pub label: String,
    /// Under a request's heading: the start of its key.
    pub note: String,
    /// Its horizontal position.
    pub x: f64,
}

/// How an event is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A message that arrived: a line with an open arrowhead.
    Arrow,
    /// A statement the database refused (the UNIQUE constraint): the line
    /// ends in a bar instead of an arrowhead.
    Refused,
    /// An answer that never arrived: the line stops short, ending in a cross.
    Lost,
    /// Something on one lifeline only: a crash (a cross), a hang-up, a wait.
    Mark,
}

/// One arrow or mark.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The request it belongs to, as the server numbered it.
    pub request: u64,
    /// Milliseconds since the run's shared origin.
    pub at_ms: f64,
    /// Its height in the picture.
    pub y: f64,
    /// Lifeline it starts on (an index into [`Diagram::lifelines`]).
    pub from: usize,
    /// Lifeline it ends on; the same as `from` for a mark.
    pub to: usize,
    /// How it is drawn.
    pub shape: Shape,
    /// What kind of thing it is, for its colour and tests (as in the table).
    pub tone: &'static str,
    /// Its words, e.g. `#2 looked for the key: none`.
    pub label: String,
    /// The server's step, or `None` for the request arriving.
    pub step: Option<StepKind>,
}

/// A wait folded into a break.
#[derive(Debug, Clone, PartialEq)]
pub struct Fold {
    /// The middle of the break.
    pub y: f64,
    /// How long the wait really was.
    pub skipped_ms: f64,
}

/// The whole picture of one pane.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Diagram {
    /// Requests first, in order of arrival, then the server, then the database.
    pub lifelines: Vec<Lifeline>,
    /// In the order they happened; `y` never decreases.
    pub events: Vec<Event>,
    /// Waits drawn shorter than they were.
    pub folds: Vec<Fold>,
    /// The picture's size.
    pub width: f64,
    /// The picture's size.
    pub height: f64,
}

/// The earliest step of any pane: the shared time axis starts there.
pub fn origin_us<'a>(panes: impl IntoIterator<Item = &'a [Step]>) -> Option<i64> {
    panes
        .into_iter()
        .flat_map(|steps| steps.iter().map(|step| step.at_us))
        .min()
}

impl Diagram {
    /// Lays out `steps` (in any order) with times measured from `origin_us`.
    pub fn of(steps: &[Step], origin_us: i64, scale: Scale, locale: Locale) -> Self {
        let mut ordered: Vec<&Step> = steps.iter().collect();
        sort_by_number(&mut ordered, |step| step.seq as i64);
        let mut requests: Vec<(u64, &str)> = Vec::new();
        for step in &ordered {
            if !requests.iter().any(|(request, _)| *request == step.request) {
                requests.push((step.request, &step.key));
            }
        }
        let mut lifelines: Vec<Lifeline> = requests
            .iter()
            .enumerate()
            .map(|(index, (_, key))| Lifeline {
                role: Role::Request,
                label: td_string!(locale, pane.lane, number = index + 1),
                // The key alone: "key …" would not fit between two lanes.
                note: if key.is_empty() {
                    td_string!(locale, diagram.no_key).to_owned()
                } else {
                    short_key(key).to_owned()
                },
                x: MARGIN + index as f64 * LANE_GAP,
            })
            .collect();
        let server_x =
            MARGIN + requests.len().saturating_sub(1) as f64 * LANE_GAP + CLIENT_TO_SERVER;
        let (server, database) = (lifelines.len(), lifelines.len() + 1);
        lifelines.push(Lifeline {
            role: Role::Server,
            label: td_string!(locale, diagram.server).to_owned(),
            note: String::new(),
            x: server_x,
        });
        lifelines.push(Lifeline {
            role: Role::Database,
            label: td_string!(locale, diagram.database).to_owned(),
            note: String::new(),
            x: server_x + SERVER_TO_DATABASE,
        });

        let mut events = Vec::new();
        let mut arrived: Vec<u64> = Vec::new();
        for step in ordered {
            let lane = requests
                .iter()
                .position(|(request, _)| *request == step.request)
                .expect("every request has a lane");
            let at_ms = (step.at_us - origin_us) as f64 / 1000.0;
            let event = |from, to, shape, label: String| Event {
                request: step.request,
                at_ms,
                y: 0.0,
                from,
                to,
                shape,
                tone: tone(&step.kind),
                label,
                step: Some(step.kind),
            };
            if !arrived.contains(&step.request) {
                arrived.push(step.request);
                events.push(Event {
                    tone: "request",
                    step: None,
                    ..event(
                        lane,
                        server,
                        Shape::Arrow,
                        td_string!(locale, diagram.request).to_owned(),
                    )
                });
            }
            let numbered = td_string!(
                locale,
                diagram.numbered,
                number = lane + 1,
                step = describe(&step.kind, locale)
            );
            events.push(match step.kind {
                StepKind::Answered { .. } => {
                    event(server, lane, Shape::Arrow, describe(&step.kind, locale))
                }
                StepKind::ResponseDropped => {
                    event(server, lane, Shape::Lost, describe(&step.kind, locale))
                }
                StepKind::SlowPartStarted { .. } | StepKind::Crashed | StepKind::Cancelled => {
                    event(server, server, Shape::Mark, numbered)
                }
                StepKind::KeyConflict => event(server, database, Shape::Refused, numbered),
                _ => event(server, database, Shape::Arrow, numbered),
            });
        }

        let folds = place(&mut events, scale);
        let width = lifelines.last().map_or(0.0, |line| line.x) + MARGIN;
        let height = events.last().map_or(TOP, |event| event.y) + BOTTOM;
        Self {
            lifelines,
            events,
            folds,
            width,
            height,
        }
    }

    /// Whether there is nothing to draw.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// How many events had happened by `ms` (the rest are hidden in playback).
    pub fn shown_at(&self, ms: f64) -> usize {
        self.events.partition_point(|event| event.at_ms <= ms)
    }

    /// Where the playhead is drawn at `ms`: on the last event shown, or
    /// above the first.
    pub fn playhead_y(&self, ms: f64) -> f64 {
        match self.shown_at(ms) {
            0 => TOP - ROW / 2.0,
            shown => self.events[shown - 1].y,
        }
    }
}

/// Gives each event its height; returns the waits it folded.
fn place(events: &mut [Event], scale: Scale) -> Vec<Fold> {
    let span_ms = events.last().map_or(0.0, |e| e.at_ms) - events.first().map_or(0.0, |e| e.at_ms);
    let px_per_ms = match scale {
        Scale::Folded => PX_PER_MS,
        // Rows take their least room anyway; the rest of the height is time.
        Scale::ToScale => {
            let free = (TALLEST_TO_SCALE - ROW * events.len() as f64).max(ROW * 4.0);
            PX_PER_MS.min(free / span_ms.max(1.0))
        }
    };
    let mut folds = Vec::new();
    let mut y = TOP;
    let mut previous: Option<(f64, bool)> = None;
    for index in 0..events.len() {
        let continues = index > 0 && continues_arrival(&events[index - 1], &events[index]);
        let event = &mut events[index];
        if continues {
            // The same row: request → server → database reads as one line.
        } else if let Some((previous, _)) = previous {
            let waited = event.at_ms - previous;
            let wanted = waited * px_per_ms;
            y += if scale == Scale::Folded && wanted > LONGEST_GAP {
                folds.push(Fold {
                    y: y + FOLDED_GAP / 2.0,
                    skipped_ms: waited,
                });
                FOLDED_GAP
            } else {
                wanted.max(ROW)
            };
        }
        event.y = y;
        previous = Some((event.at_ms, continues));
    }
    folds
}

/// Whether `next` is the first statement of the request whose arrival is
/// `arrival`: it starts where the arrival ends (the server) and goes on
/// away from the request (to the database), so both fit on one row and a
/// run's picture is a row shorter per request.
fn continues_arrival(arrival: &Event, next: &Event) -> bool {
    arrival.step.is_none()
        && next.request == arrival.request
        && next.from == arrival.to
        && next.to != next.from
        && next.to != arrival.from
}

/// Every moment at which something happens in any of `diagrams`, in order:
/// what "one event forward / back" steps through.
pub fn moments<'a>(diagrams: impl IntoIterator<Item = &'a Diagram>) -> Vec<f64> {
    let mut times: Vec<f64> = diagrams
        .into_iter()
        .flat_map(|diagram| diagram.events.iter().map(|event| event.at_ms))
        .collect();
    // Whole microseconds, as the servers stamp their steps.
    sort_by_number(&mut times, |ms| (ms * 1000.0).round() as i64);
    times.dedup();
    times
}

pub mod svg;

#[cfg(test)]
mod tests;
