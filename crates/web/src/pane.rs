//! One server's pane: the verdict, the attempts on a shared time axis, the
//! server's own steps as a sequence diagram, and the stored orders grouped
//! by purchase.

use lab_client::playback::{attempt_at, orders_at};
use lab_client::{
    AttemptText, DesignText, Locale, Num, OutcomeText, Sequence, clock_time, group_orders,
    key_label, money,
};
use lab_i18n::i18n::td_string;
use lab_wire::Order;
use leptos::prelude::*;

use crate::picture::Picture;
use crate::results::Results;
use crate::state::Pane;
use crate::words::say;
use crate::words::use_locale;

/// One server's pane.
#[component]
pub fn PaneView(
    pane: Pane,
    /// Which of the page's two panes (0 or 1): its diagram on the shared axis.
    index: usize,
) -> impl IntoView {
    let Results {
        purchases,
        span_ms,
        now_ms,
        steps_live,
        axis,
        playback,
        ..
    } = Results::of_page();
    let diagram = axis.diagrams[index];
    // Where the run's time axis starts (see [`lab_client::diagram::origin_us`]).
    let origin_us = axis.origin_us;
    let page_locale = use_locale();
    let locale = move || page_locale.get();
    let playhead = playback.playhead;
    // The orders as they stood at the playhead, or all of them.
    let orders = Memo::new(move |_| match (playhead.get(), origin_us.get()) {
        (Some(ms), Some(origin)) => pane.orders.with(|orders| {
            pane.steps
                .with(|steps| orders_at(orders, steps, origin, ms))
        }),
        _ => pane.orders.get(),
    });
    let groups = move || {
        let locale = locale();
        let orders: Vec<Order> = orders.get();
        let groups = purchases.with_value(|p| group_orders(&orders, p));
        groups
            .into_iter()
            .map(|group| {
                let duplicate = group.is_duplicate();
                let count = group.orders.len();
                let summary = td_string!(
                    locale,
                    pane.group_summary,
                    count = count as u64,
                    title = group.title(locale),
                    charged = group.charged(locale)
                )
                .to_string();
                let orders = group
                    .orders
                    .into_iter()
                    .map(|order| {
                        view! {
                            <li>
                                {td_string!(
                                    locale,
                                    pane.order_line,
                                    item = order.item,
                                    price = money(order.amount_cents),
                                    key = key_label(&order.idempotency_key, locale),
                                    time = clock_time(order.created_at.micros()),
                                )
                                .to_string()}
                            </li>
                        }
                    })
                    .collect_view();
                view! {
                    <li class="group" class:duplicate=duplicate>
                        {duplicate.then(|| view! { <strong class="flag">{say(|l| td_string!(l, pane.duplicate).to_string())}</strong> })}
                        <span>{summary}</span>
                        <ul class="orders">{orders}</ul>
                    </li>
                }
            })
            .collect_view()
    };
    let title = move || pane.design.get().title(locale());
    let heading = say(move |locale| pane.design.get().title(locale));
    let verdict = say(move |locale| {
        pane.verdict
            .with(|run| run.as_ref().map(|run| run.verdict(locale)))
            .unwrap_or_default()
    });
    let error = move || {
        pane.error.get().map(|error| {
            let text = td_string!(
                locale(),
                error.orders_not_loaded,
                error = error.text(locale())
            );
            view! { <p class="error" role="alert">{text.to_string()}</p> }
        })
    };
    let order_count = move || orders.with(Vec::len);
    let clock = Signal::derive(move || playhead.get().unwrap_or_else(|| now_ms.get()));
    let attempt_count = Memo::new(move |_| pane.attempts.with(Vec::len));
    view! {
        <section class="pane" aria-labelledby=pane.id>
            <h2 id=pane.id>{heading}</h2>
            <p class="how">{say(move |locale| pane.design.get().how(locale))}</p>
            <p class="verdict" aria-live="polite">{verdict}</p>
            {error}
            <h3>{say(|l| td_string!(l, pane.steps).to_string())}</h3>
            {move || {
                let picture = !playback.as_table.get() && diagram.with(|d| !d.is_empty());
                view! {
                    {picture.then(|| view! { <Picture pane=pane.id diagram=diagram playhead=playhead /> })}
                    <div class:visually-hidden=picture>{sequence_diagram(pane, title(), steps_live.get(), locale())}</div>
                }
            }}
            <h3>{say(|l| td_string!(l, pane.attempts).to_string())}</h3>
            <ol class="timeline">
                // Redrawn only when an attempt is added: each row's text and
                // bar follow the clock themselves. (Not leptos's keyed <For>,
                // whose diffing cost the page 4 KB gzipped for at most 36 rows.)
                {move || (0..attempt_count.get())
                    .map(|index| view! { <AttemptRow pane=pane index=index span_ms=span_ms now_ms=clock playhead=playhead /> })
                    .collect_view()}
            </ol>
            <h3 class="order-count" data-count=order_count>
                {say(move |locale| td_string!(locale, pane.orders_stored, count = order_count()))}
            </h3>
            <ul class="groups">{groups}</ul>
        </section>
    }
}

/// One attempt on the pane's timeline: its text, its outcome and its bar
/// on the shared time axis.
#[component]
fn AttemptRow(
    pane: Pane,
    index: usize,
    span_ms: Signal<f64>,
    now_ms: Signal<f64>,
    /// During a replay, the attempt as it stood then.
    playhead: RwSignal<Option<f64>>,
) -> impl IntoView {
    let record = move || {
        let record = pane.attempts.with(|all| all.get(index).cloned())?;
        match playhead.get() {
            Some(ms) => attempt_at(&record, ms),
            None => Some(record),
        }
    };
    let outcome = move || record().and_then(|record| record.outcome);
    let text = say(move |locale| {
        record().map_or_else(String::new, |record| {
            td_string!(
                locale,
                pane.attempt,
                copy = record.copy,
                number = record.number,
                key = key_label(&record.key, locale),
                time = record.time_range(locale)
            )
        })
    });
    let label = say(move |locale| {
        outcome().map_or_else(
            || td_string!(locale, pane.waiting).to_string(),
            |o| o.label(locale),
        )
    });
    let meaning = say(move |locale| {
        let meaning = outcome().map_or_else(
            || td_string!(locale, pane.no_answer_yet).to_string(),
            |o| o.meaning(locale),
        );
        td_string!(locale, pane.meaning, meaning = meaning)
    });
    let kind = move || outcome().as_ref().map_or("waiting", outcome_kind);
    let bar = move || record().map_or((0.0, 0.0), |record| record.bar(span_ms.get(), now_ms.get()));
    view! {
        <li class="attempt" data-outcome=kind class:unsent=move || record().is_none()>
            <span class="attempt-text">
                {text} <strong class="outcome">{label}</strong> <span class="meaning">{meaning}</span>
            </span>
            <span class="track" aria-hidden="true">
                <span
                    class="bar"
                    style:left=move || format!("{:.2}%", Num(bar().0))
                    style:width=move || format!("{:.2}%", Num(bar().1))
                ></span>
            </span>
        </li>
    }
}

/// A CSS-friendly name for an outcome; the bar's pattern and colour come from it.
fn outcome_kind(outcome: &lab_client::Outcome) -> &'static str {
    use lab_client::Outcome::*;
    match outcome {
        Created => "created",
        Replayed => "replayed",
        InProgress => "in-progress",
        Rejected { .. } => "rejected",
        Dropped => "dropped",
        Crashed => "crashed",
        TimedOut => "timed-out",
        NetworkError(_) => "network-error",
        Read { .. } => "read",
    }
}

/// The server's steps for the last run: a column per request, a row per
/// step, top to bottom in the order the server took them.
fn sequence_diagram(pane: Pane, title: String, live: bool, locale: Locale) -> AnyView {
    let sequence = pane.steps.with(|steps| Sequence::of(steps, locale));
    if sequence.is_empty() {
        let note = if live {
            td_string!(locale, pane.steps_appear_here)
        } else {
            td_string!(locale, pane.steps_not_connected)
        };
        return view! { <p class="hint">{note.to_string()}</p> }.into_any();
    }
    let missed = pane.steps_missed.get();
    let missed = (missed > 0).then(|| {
        let text = td_string!(locale, pane.steps_missed, count = missed);
        view! { <p class="steps-missed" role="status">{text}</p> }
    });
    let lanes = sequence.lanes.len();
    let lane_names: Vec<String> = sequence.lanes.iter().map(|l| l.heading.clone()).collect();
    let headings = sequence
        .lanes
        .into_iter()
        .map(|lane| {
            view! {
                <th scope="col">
                    {lane.heading}
                    <span class="lane-key">
                        {td_string!(locale, pane.lane_key, key = lane.key).to_string()}
                    </span>
                </th>
            }
        })
        .collect_view();
    let rows = sequence
        .rows
        .into_iter()
        .map(|row| {
            let cells = (0..lanes)
                .map(|lane| {
                    if lane == row.lane {
                        // The tag shows only where the lanes fold into one column (a phone).
                        let tag = td_string!(locale, pane.lane_tag, lane = &lane_names[lane]).to_string();
                        view! {
                            <td class="step" data-tone=row.tone>
                                <span class="lane-tag">{tag}</span>
                                {row.text.clone()}
                            </td>
                        }
                        .into_any()
                    } else {
                        view! { <td></td> }.into_any()
                    }
                })
                .collect_view();
            view! {
                <tr>
                    <th scope="row" class="at">
                        {td_string!(locale, pane.after, ms = format!("{:.0}", Num(row.after_ms))).to_string()}
                    </th>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    let label = td_string!(locale, pane.diagram_label, server = title).to_string();
    let caption = label.clone();
    view! {
        {missed}
        <p class="hint">{td_string!(locale, pane.diagram_hint)}</p>
        // Focusable, so a keyboard can scroll a wide diagram on a phone.
        <div class="sequence-scroll" tabindex="0" role="region" aria-label=label>
            <table class="sequence">
                <caption class="visually-hidden">{caption}</caption>
                <thead>
                    <tr>
                        <th scope="col">{td_string!(locale, pane.time)}</th>
                        {headings}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
    .into_any()
}
