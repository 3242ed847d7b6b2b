//! "Every order at once": the server runs every order in which the copies'
//! statements can interleave (`POST /explorations`), for the chosen design
//! and for one beside it (Naive beside the others, Transactional beside
//! Naive), and each order of statements is a tile: its schedule, the
//! orders it left, broken or kept in shape and colour, shortest first. A
//! tile is a link to that schedule; opened here, it is played again on
//! the real server and drawn above.

use lab_client::scheduler::{parse_schedule, schedule_link};
use lab_client::{Design, DesignText};
use lab_i18n::i18n::td_string;
use lab_wire::{ExplorationState, ExplorationView, ExploredSchedule};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::ApiError;
use crate::schedule_api;
use crate::stepper::Stepper;
use crate::words::say;

/// One design's exploration, as far as it has come.
#[derive(Debug, Clone, PartialEq)]
enum Explored {
    Running(Option<ExplorationView>),
    Done(ExplorationView),
    Failed(ApiError),
}

/// The design shown beside `design`'s tiles: the mistake beside the
/// fixes, and the fix beside the mistake.
fn beside(design: Design) -> Design {
    if design == Design::Naive {
        Design::Transactional
    } else {
        Design::Naive
    }
}

/// The section: its button, then each design's tiles.
#[component]
pub fn EveryOrder(stepper: Stepper) -> impl IntoView {
    let explored = RwSignal::new(Vec::<(Design, Explored)>::new());
    let running =
        move || explored.with(|all| all.iter().any(|(_, e)| matches!(e, Explored::Running(_))));
    let explore = move |_| {
        if running() {
            return;
        }
        let design = stepper.design.get_untracked();
        let copies = stepper.copies.get_untracked();
        let lab = stepper.lab.get_value();
        let designs = [design, beside(design)];
        explored.set(
            designs
                .iter()
                .map(|d| (*d, Explored::Running(None)))
                .collect(),
        );
        spawn_local(async move {
            // One after the other: a lab runs one exploration at a time.
            for (index, design) in designs.into_iter().enumerate() {
                let outcome = explore_one(design, &lab, copies, |view| {
                    explored.update(|all| all[index].1 = Explored::Running(Some(view)));
                })
                .await;
                explored.update(|all| all[index].1 = outcome);
            }
        });
    };
    let grids = move || {
        explored
            .get()
            .into_iter()
            .map(|(design, explored)| view! { <Tiles stepper=stepper design=design explored=explored /> })
            .collect_view()
    };
    view! {
        <section class="every-order" id="every-order" aria-labelledby="every-order-title">
            <h2 id="every-order-title">{say(|l| td_string!(l, scheduler.every_title).to_owned())}</h2>
            <p class="hint">{say(|l| td_string!(l, scheduler.every_hint).to_owned())}</p>
            <button type="button" id="show-every-order" disabled=running on:click=explore>
                {say(|l| td_string!(l, scheduler.every_button).to_owned())}
            </button>
            <div class="explorations">{grids}</div>
        </section>
    }
}

/// Runs one exploration to its end, handing each read of it to `progress`.
async fn explore_one(
    design: Design,
    lab: &lab_wire::LabSecret,
    copies: u8,
    progress: impl Fn(ExplorationView),
) -> Explored {
    let mut view = match schedule_api::explore(design, lab, copies).await {
        Ok(view) => view,
        Err(error) => return Explored::Failed(error),
    };
    while view.state == ExplorationState::Running {
        progress(view.clone());
        view = match schedule_api::exploration(design, lab, &view.id).await {
            Ok(view) => view,
            Err(error) => return Explored::Failed(error),
        };
    }
    Explored::Done(view)
}

/// One design's tiles and their summary in words.
#[component]
fn Tiles(stepper: Stepper, design: Design, explored: Explored) -> impl IntoView {
    let title = say(move |l| td_string!(l, scheduler.every_of, server = design.title(l)));
    let (state, summary, schedules) = match explored {
        Explored::Running(view) => {
            let done = view.as_ref().map_or(0, |v| v.schedules.len());
            let words = say(move |l| td_string!(l, scheduler.every_running, count = done));
            ("running", words, Vec::new())
        }
        Explored::Failed(error) => {
            let words = say(move |l| td_string!(l, scheduler.every_failed, error = error.text(l)));
            ("failed", words, Vec::new())
        }
        Explored::Done(view) if view.state == ExplorationState::Failed => {
            let detail = view.detail.unwrap_or_default();
            let words = say(move |l| td_string!(l, scheduler.every_failed, error = detail.clone()));
            ("failed", words, Vec::new())
        }
        Explored::Done(view) => {
            let count = view.schedules.len();
            let broken = view
                .schedules
                .iter()
                .filter(|s| s.broke_the_promise)
                .count();
            let words = say(move |l| {
                td_string!(l, scheduler.every_summary, count = count, broken = broken)
            });
            ("finished", words, view.schedules)
        }
    };
    let copies = stepper.copies.get_untracked();
    let tiles = schedules
        .into_iter()
        .map(|explored| view! { <Tile stepper=stepper design=design copies=copies explored=explored /> })
        .collect_view();
    view! {
        <section class="exploration" data-design=design.name() data-state=state aria-label=title>
            <h3>{title}</h3>
            <p class="summary" aria-live="polite">{summary}</p>
            <ol class="tiles">{tiles}</ol>
        </section>
    }
}

/// One schedule: a link that plays it again here.
#[component]
fn Tile(stepper: Stepper, design: Design, copies: u8, explored: ExploredSchedule) -> impl IntoView {
    let ExploredSchedule {
        schedule,
        orders,
        broke_the_promise,
        ..
    } = explored;
    let href = schedule_link(design, copies, &schedule);
    let label = {
        let schedule = schedule.clone();
        say(move |l| {
            if broke_the_promise {
                td_string!(
                    l,
                    scheduler.tile_broken,
                    schedule = &schedule,
                    orders = orders
                )
            } else {
                td_string!(
                    l,
                    scheduler.tile_kept,
                    schedule = &schedule,
                    orders = orders
                )
            }
        })
    };
    let open = {
        let schedule = schedule.clone();
        move |ev: leptos::ev::MouseEvent| {
            // A plain click plays it here; a click that opens a new tab is the browser's.
            if ev.ctrl_key() || ev.meta_key() || ev.shift_key() || ev.button() != 0 {
                return;
            }
            let Some(moves) = parse_schedule(&schedule, copies) else {
                return;
            };
            ev.prevent_default();
            // One schedule at a time: a tile waits for the page's start or move.
            if stepper.busy.get_untracked() {
                return;
            }
            stepper.design.set(design);
            stepper.copies.set(copies);
            // Its first move brings the lanes and the picture into view.
            stepper.start(moves);
        }
    };
    view! {
        <li>
            <a class="tile" href=href data-orders=orders data-broken=broke_the_promise.to_string()
                aria-label=label on:click=open>
                <span class="tile-schedule">{schedule}</span>
                <span class="tile-orders">{say(move |l| td_string!(l, scheduler.tile_orders, orders = orders))}</span>
            </a>
        </li>
    }
}
