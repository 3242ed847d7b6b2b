//! "You are the scheduler" (`/scheduler`, in the viewer's bundle so the
//! learner's page stays light): the learner picks a design and 2 or 3
//! copies of one order, then releases each copy's next statement with its
//! lane's button or its number key, crashes one at a gate, retries it, and
//! watches the server's answers, orders and sequence picture as they go.
//! The challenges are checked from what the server did.

use lab_client::scheduler::{COPIES, Challenge, ChallengeText, Lane, Move, parse_schedule};
use lab_client::{Design, DesignText, OutcomeText, timeline};
use lab_i18n::i18n::td_string;
use lab_wire::NewOrder;
use leptos::prelude::*;

use crate::every_order::EveryOrder;
use crate::lab_id::current_lab;
use crate::language::LanguageField;
use crate::live_steps::listen_to;
use crate::pane::PaneView;
use crate::playback::Playback;
use crate::playback_bar::{DiagramOptions, PlaybackBar, is_typing};
use crate::results::Results;
use crate::run_axis::RunAxis;
use crate::runner::now_ms;
use crate::state::Pane;
use crate::stepper::Stepper;
use crate::url::{replace_link, search_params};
use crate::words::{say, use_locale};

/// The scheduler page, for the lab in the link's fragment.
#[component]
pub fn SchedulerPage() -> impl IntoView {
    let params = search_params();
    let param = |name: &str| params.as_ref().and_then(|p| p.get(name));
    let design = param("design")
        .and_then(|name| Design::from_name(&name))
        .unwrap_or(Design::Naive);
    let copies = param("copies")
        .and_then(|n| n.parse::<u8>().ok())
        .filter(|n| COPIES.contains(n))
        .unwrap_or(*COPIES.start());
    let lab = current_lab();
    let pane = Pane::new("pane-1", design);
    // The axis is drawn for two panes; the second stays empty.
    let spare = Pane::new("pane-2", design);
    // What the lab's own first order is: the same purchase, in the page's language.
    let order = NewOrder {
        item: td_string!(use_locale().get_untracked(), page.default_item).to_owned(),
        amount_cents: 450,
    };
    let stepper = Stepper::new(lab.clone(), design, copies, order, pane);

    let live = RwSignal::new(false);
    listen_to(
        &lab,
        live,
        |_| {},
        move |server, step| {
            let ours = server == stepper.design.get_untracked()
                && stepper.purchases.with_value(|p| {
                    p.current().is_some() && p.purchase_of(&step.key) == p.current()
                });
            if ours {
                pane.steps.update(|steps| steps.push(step));
                stepper.refresh();
            }
        },
    );

    // The clock the attempts' bars and the lock's countdown follow.
    let now = RwSignal::new(0.0);
    let ticker = set_interval_with_handle(
        move || now.set(now_ms()),
        std::time::Duration::from_millis(250),
    )
    .ok();
    on_cleanup(move || {
        if let Some(ticker) = ticker {
            ticker.clear();
        }
    });
    let span = Signal::derive(move || {
        pane.attempts
            .with(|a| timeline::span_ms(a.iter(), stepper.run_ms(now.get())))
    });
    let to_scale = RwSignal::new(false);
    let axis = RunAxis::of([pane, spare], to_scale);
    let playback = Playback::new(axis.moments, to_scale);
    Results {
        purchases: stepper.purchases,
        span_ms: span,
        now_ms: Signal::derive(move || stepper.run_ms(now.get())),
        steps_live: live.into(),
        busy: stepper.busy.into(),
        axis,
        playback,
    }
    .provide();

    listen_for_copy_keys(stepper);
    // A link to a schedule (a tile's, or one copied from the address bar) plays it.
    let linked = param("schedule")
        .and_then(|text| parse_schedule(&text, copies))
        .unwrap_or_default();
    stepper.start(linked);
    // The address bar follows the schedule, so it can be copied or projected.
    Effect::new(move |_| replace_link(&stepper.own_link()));

    let choose = move |design: Design, copies: u8| {
        if stepper.busy.get_untracked() {
            return;
        }
        stepper.design.set(design);
        stepper.copies.set(copies);
        playback.show_all();
        stepper.start(Vec::new());
    };
    let design_options = Design::ALL
        .into_iter()
        .map(|d| {
            view! {
                <option value=d.name() prop:selected=move || stepper.design.get() == d>
                    {say(move |l| d.choice(l))}
                </option>
            }
        })
        .collect_view();
    let copies_options = COPIES
        .map(|n| {
            let id = format!("copies-{n}");
            view! {
                <input type="radio" id=id.clone() name="copies" prop:checked=move || stepper.copies.get() == n disabled=move || stepper.busy.get()
                    on:change=move |_| choose(stepper.design.get_untracked(), n) />
                <label for=id>{n.to_string()}</label>
            }
        })
        .collect_view();
    let state = move || {
        if stepper.error.with(Option::is_some) {
            "failed"
        } else if stepper.busy.get() || stepper.view.with(Option::is_none) {
            "busy"
        } else {
            "ready"
        }
    };
    let error = move || {
        stepper.error.get().map(|error| {
            view! { <p class="error" role="alert">{say(move |l| error.text(l))}</p> }
        })
    };
    let schedule = say(move |l| {
        let text = stepper.schedule_text();
        if text.is_empty() {
            td_string!(l, scheduler.no_steps).to_owned()
        } else {
            td_string!(l, scheduler.schedule, schedule = text)
        }
    });
    let order_count = move || pane.orders.with(Vec::len);
    let lanes = move || {
        (1..=stepper.copies.get())
            .map(|copy| view! { <CopyLane stepper=stepper copy=copy now=now /> })
            .collect_view()
    };
    let lab_link = format!("/#secret={}", lab.as_str());
    view! {
        <main class="scheduler" data-scheduler=state data-moves=move || stepper.moves.with(Vec::len)>
            <header class="intro">
                <h1>{say(|l| td_string!(l, scheduler.title).to_owned())}</h1>
                <p>{say(|l| td_string!(l, scheduler.intro).to_owned())}</p>
                <div class="display-options">
                    <LanguageField />
                    <a href=lab_link class="open-lab">{say(|l| td_string!(l, scheduler.back).to_owned())}</a>
                </div>
            </header>
            <section class="scheduler-controls">
                <div class="field select">
                    <label for="scheduler-design">{say(|l| td_string!(l, scheduler.design_label).to_owned())}</label>
                    <select id="scheduler-design" disabled=move || stepper.busy.get() on:change=move |ev| {
                        if let Some(d) = Design::from_name(&event_target_value(&ev)) {
                            choose(d, stepper.copies.get_untracked());
                        }
                    }>{design_options}</select>
                </div>
                <fieldset class="field copies">
                    <legend>{say(|l| td_string!(l, scheduler.copies_label).to_owned())}</legend>
                    {copies_options}
                </fieldset>
                <button type="button" id="start-over" disabled=move || stepper.busy.get() on:click=move |_| stepper.start(Vec::new())>
                    {say(|l| td_string!(l, scheduler.start_over).to_owned())}
                </button>
                <button type="button" id="undo" disabled=move || stepper.busy.get() || stepper.moves.with(Vec::is_empty)
                    on:click=move |_| stepper.undo()>
                    {say(|l| td_string!(l, scheduler.undo).to_owned())}
                </button>
            </section>
            // On a wide screen the lanes stand beside the picture, held at the
            // top, so each step and what it drew are seen together.
            <div class="scheduler-work" id="scheduler-work">
                <div class="scheduler-side">
                    {error}
                    <div class="lanes" id="scheduler-lanes">{lanes}</div>
                    <p class="schedule" aria-live="polite">
                        {schedule} " "
                        <a class="schedule-link" href=move || stepper.own_link()>{say(|l| td_string!(l, scheduler.link).to_owned())}</a>
                    </p>
                    <p class="order-total" data-count=order_count>
                        {say(move |l| td_string!(l, scheduler.orders, count = order_count()))}
                    </p>
                    <Challenges stepper=stepper choose=Callback::new(move |d: Design| choose(d, stepper.copies.get_untracked())) />
                </div>
                <div class="results" id="results">
                    <PlaybackBar />
                    <div class="panes single">
                        <PaneView pane=pane index=0 />
                    </div>
                    <DiagramOptions />
                </div>
            </div>
            <EveryOrder stepper=stepper />
        </main>
    }
}

/// One copy's lane: where it stands, and its buttons.
#[component]
fn CopyLane(stepper: Stepper, copy: u8, now: RwSignal<f64>) -> impl IntoView {
    let lane = Memo::new(move |_| stepper.lane(copy));
    let kind = move || lane.with(lane_kind);
    let cannot_move = move || stepper.busy.get() || !lane.with(Lane::can_move);
    let crashed_at = move || {
        stepper
            .crashed
            .with(|c| c.get(usize::from(copy - 1)).copied().flatten())
    };
    let retries = move || {
        crashed_at().map(|(_, crashed_ms)| {
            let left = move || (crashed_ms + f64::from(lab_client::scheduler::LOCK_SECS) * 1000.0 - now.get()) / 1000.0;
            let lock = say(move |l| {
                let left = left();
                if left > 0.0 {
                    td_string!(l, scheduler.lock_running, secs = lab_client::scheduler::LOCK_SECS, left = left.ceil() as u32)
                } else {
                    td_string!(l, scheduler.lock_ran_out).to_owned()
                }
            });
            let lock_state = move || if left() > 0.0 { "running" } else { "ran-out" };
            let answers = move || {
                stepper.retries.get().into_iter().enumerate().map(|(i, outcome)| {
                    view! { <li>{say(move |l| td_string!(l, scheduler.retry_answered, number = i + 2, label = outcome.label(l), meaning = outcome.meaning(l)))}</li> }
                }).collect_view()
            };
            view! {
                <p class="lock" data-lock=lock_state>{lock}</p>
                <button type="button" class="retry" disabled=move || stepper.retrying.get() on:click=move |_| stepper.retry(copy)>
                    {say(move |l| td_string!(l, scheduler.retry, copy = copy))}
                </button>
                <ol class="retries" aria-live="polite">{answers}</ol>
            }
        })
    };
    view! {
        <section class="lane" data-copy=copy data-lane=kind aria-labelledby=format!("lane-{copy}")>
            <h2 id=format!("lane-{copy}")>{say(move |l| td_string!(l, scheduler.copy, copy = copy))}</h2>
            <p class="lane-state" aria-live="polite">{say(move |l| lane.with(|lane| lane.text(l)))}</p>
            <button type="button" class="release" aria-keyshortcuts=copy.to_string() disabled=cannot_move
                on:click=move |_| stepper.act(Move::Release(copy))>
                {say(move |l| td_string!(l, scheduler.release, copy = copy))}
            </button>
            <button type="button" class="crash" disabled=cannot_move on:click=move |_| stepper.act(Move::Crash(copy))>
                {say(|l| td_string!(l, scheduler.crash).to_owned())}
            </button>
            {retries}
        </section>
    }
}

/// The three challenges, met or not, with a button to play each.
#[component]
fn Challenges(stepper: Stepper, choose: Callback<Design>) -> impl IntoView {
    let items = Challenge::ALL
        .into_iter()
        .map(|challenge| {
            let met = move || stepper.challenges.with(|c| c.is_met(challenge));
            let server = challenge.design();
            view! {
                <li class="challenge" data-challenge=challenge.name() data-met=move || met().to_string()>
                    <strong class="badge">{say(move |l| if met() { td_string!(l, scheduler.met).to_owned() } else { td_string!(l, scheduler.not_met).to_owned() })}</strong>
                    " " <span>{say(move |l| challenge.task(l).to_owned())}</span>
                    {move || met().then(|| view! { <p class="met">{say(move |l| challenge.lesson(l).to_owned())}</p> })}
                    <button type="button" class="play" disabled=move || stepper.busy.get() || stepper.design.get() == server
                        on:click=move |_| choose.run(server)>
                        {say(move |l| td_string!(l, scheduler.play, server = server.title(l)))}
                    </button>
                </li>
            }
        })
        .collect_view();
    let tries = move || stepper.challenges.with(|c| c.transactional_schedules.len());
    view! {
        <section class="challenges" aria-labelledby="challenges-title">
            <h2 id="challenges-title">{say(|l| td_string!(l, scheduler.challenges).to_owned())}</h2>
            <ol>{items}</ol>
            <p class="tries">
                {say(move |l| td_string!(l, scheduler.tries, count = tries()))}
                // Two different orders kept one order each: now see them all.
                {move || stepper.challenges.with(|c| c.offer_every_order()).then(|| view! {
                    " " <a href="#every-order" class="offer-every-order">{say(|l| td_string!(l, scheduler.every_button).to_owned())}</a>
                })}
            </p>
        </section>
    }
}

/// A CSS- and test-friendly name for where a lane stands.
fn lane_kind(lane: &Lane) -> &'static str {
    match lane {
        Lane::Joining => "joining",
        Lane::Next(_) => "next",
        Lane::Running => "running",
        Lane::Waiting { .. } => "waiting",
        Lane::Crashed { .. } => "crashed",
        Lane::Ending => "ending",
        Lane::Answered(_) => "answered",
    }
}

/// The keys 1, 2 and 3 release that copy's next statement.
fn listen_for_copy_keys(stepper: Stepper) {
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() || is_typing(&ev) {
            return;
        }
        let Some(copy) = ev
            .key()
            .parse::<u8>()
            .ok()
            .filter(|n| (1..=stepper.copies.get_untracked()).contains(n))
        else {
            return;
        };
        if stepper.lane(copy).can_move() {
            stepper.act(Move::Release(copy));
            ev.prevent_default();
        }
    });
    on_cleanup(move || handle.remove());
}
