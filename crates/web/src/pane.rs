//! One server's pane: the verdict, the attempts on a shared time axis, the
//! server's own steps as a sequence diagram, and the stored orders grouped
//! by purchase.

use lab_client::{Purchases, Sequence, group_orders, money, short_key};
use leptos::prelude::*;

use crate::state::Pane;

/// One server's pane.
#[component]
pub fn PaneView(
    pane: Pane,
    purchases: StoredValue<Purchases>,
    #[prop(into)] span_ms: Signal<f64>,
    #[prop(into)] now_ms: Signal<f64>,
    /// Whether the live step stream is open.
    #[prop(into)]
    steps_live: Signal<bool>,
) -> impl IntoView {
    let groups = move || {
        let orders = pane.orders.get();
        let groups = purchases.with_value(|p| group_orders(&orders, p));
        groups
            .into_iter()
            .map(|group| {
                let duplicate = group.is_duplicate();
                let count = group.orders.len();
                let summary = format!(
                    "{} — {} {}, {}",
                    group.title(),
                    count,
                    if count == 1 { "order" } else { "orders" },
                    group.charged()
                );
                let orders = group
                    .orders
                    .into_iter()
                    .map(|order| {
                        view! {
                            <li>
                                {format!(
                                    "{} · {} · key {} · {}",
                                    order.item,
                                    money(order.amount_cents),
                                    short_key(&order.idempotency_key),
                                    order.created_at.format("%H:%M:%S%.3f UTC"),
                                )}
                            </li>
                        }
                    })
                    .collect_view();
                view! {
                    <li class="group" class:duplicate=duplicate>
                        {duplicate.then_some(view! { <strong class="flag">"⚠ duplicate purchase: "</strong> })}
                        <span>{summary}</span>
                        <ul class="orders">{orders}</ul>
                    </li>
                }
            })
            .collect_view()
    };
    let title = move || pane.design.get().title();
    view! {
        <section class="pane" aria-labelledby=pane.id>
            <h2 id=pane.id>{title}</h2>
            <p class="how">{move || pane.design.get().how()}</p>
            <p class="verdict" aria-live="polite">{move || pane.verdict.get()}</p>
            {move || pane.error.get().map(|error| view! { <p class="error" role="alert">{error}</p> })}
            <h3>"Attempts"</h3>
            <ol class="timeline">
                // Keyed by position: a row is drawn once and only its text and
                // bar follow the clock, instead of the list being rebuilt every tick.
                <For each=move || 0..pane.attempts.with(Vec::len) key=|index| *index let:index>
                    <AttemptRow pane=pane index=index span_ms=span_ms now_ms=now_ms />
                </For>
            </ol>
            <h3>"What the server did, step by step"</h3>
            {move || sequence_diagram(pane, title(), steps_live.get())}
            <h3 class="order-count">{move || format!("Orders stored: {}", pane.orders.get().len())}</h3>
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
) -> impl IntoView {
    let record = move || pane.attempts.with(|all| all.get(index).cloned());
    let outcome = move || record().and_then(|record| record.outcome);
    let text = move || {
        record().map(|record| {
            format!(
                "Copy {} · attempt {} · key {} · {} · ",
                record.copy,
                record.number,
                short_key(&record.key),
                record.time_range()
            )
        })
    };
    let label = move || outcome().map_or_else(|| "waiting…".to_owned(), |o| o.label());
    let meaning = move || format!(" ({})", outcome().map_or("no answer yet", |o| o.meaning()));
    let kind = move || outcome().as_ref().map_or("waiting", outcome_kind);
    let bar = move || record().map_or((0.0, 0.0), |record| record.bar(span_ms.get(), now_ms.get()));
    view! {
        <li class="attempt" data-outcome=kind>
            <span class="attempt-text">
                {text} <strong class="outcome">{label}</strong> <span class="meaning">{meaning}</span>
            </span>
            <span class="track" aria-hidden="true">
                <span
                    class="bar"
                    style:left=move || format!("{:.2}%", bar().0)
                    style:width=move || format!("{:.2}%", bar().1)
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
    }
}

/// The server's steps for the last run: a column per request, a row per
/// step, top to bottom in the order the server took them.
fn sequence_diagram(pane: Pane, title: &'static str, live: bool) -> AnyView {
    let sequence = pane.steps.with(|steps| Sequence::of(steps));
    if sequence.is_empty() {
        let note = if live {
            "The server's steps appear here as it takes them."
        } else {
            "Not connected to the server's step stream: the steps cannot be shown."
        };
        return view! { <p class="hint">{note}</p> }.into_any();
    }
    let lanes = sequence.lanes.len();
    let lane_names: Vec<String> = sequence.lanes.iter().map(|l| l.heading.clone()).collect();
    let headings = sequence
        .lanes
        .into_iter()
        .map(|lane| {
            view! {
                <th scope="col">
                    {lane.heading}
                    <span class="lane-key">{format!("key {}", lane.key)}</span>
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
                        let tag = format!("{}: ", lane_names[lane]);
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
                    <th scope="row" class="at">{format!("+{:.0} ms", row.after_ms)}</th>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    let label = format!("{title}: steps of each request");
    let caption = label.clone();
    view! {
        <p class="hint">
            "One column per request the server received; read down for the order in which it took the steps."
        </p>
        // Focusable, so a keyboard can scroll a wide diagram on a phone.
        <div class="sequence-scroll" tabindex="0" role="region" aria-label=label>
            <table class="sequence">
                <caption class="visually-hidden">{caption}</caption>
                <thead>
                    <tr>
                        <th scope="col">"Time"</th>
                        {headings}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
    .into_any()
}
