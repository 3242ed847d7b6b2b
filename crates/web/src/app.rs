//! The page: the client's controls, and one pane per server.

use std::collections::HashMap;

use futures::future::{join, join_all};
use lab_client::{Outcome, Run, explain, money};
use lab_wire::{LabId, NewOrder, Order};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::{self, Server};
use crate::lab_id::{current_lab, new_key};

/// How many copies "Send concurrently" sends to each server. Browsers open
/// about six connections per host, and both servers share one host: three
/// copies each keeps all six requests truly in flight at once.
const CONCURRENT_COPIES: usize = 3;
/// The server's pause between checking the key and creating the order when
/// copies are sent together, like a slow payment provider: the race window.
const RACE_WINDOW_MS: u32 = 300;
/// What the learner buys.
const ITEM: &str = "coffee";
const AMOUNT_CENTS: i64 = 450;

/// What one pane shows about its server.
#[derive(Clone, Copy)]
struct Pane {
    server: Server,
    orders: RwSignal<Vec<Order>>,
    outcomes: RwSignal<Vec<Outcome>>,
    verdict: RwSignal<Option<String>>,
    error: RwSignal<Option<String>>,
}

impl Pane {
    fn new(server: Server) -> Self {
        Self {
            server,
            orders: RwSignal::new(Vec::new()),
            outcomes: RwSignal::new(Vec::new()),
            verdict: RwSignal::new(None),
            error: RwSignal::new(None),
        }
    }

    async fn refresh(self, lab: &LabId) {
        match api::list_orders(self.server, lab).await {
            Ok(orders) => {
                self.orders.set(orders);
                self.error.set(None);
            }
            Err(error) => self
                .error
                .set(Some(format!("Could not load the orders: {error}"))),
        }
    }

    async fn show_run(self, lab: &LabId, key: &str, outcomes: Vec<Outcome>) {
        self.refresh(lab).await;
        let orders_for_key = self
            .orders
            .with_untracked(|orders| orders.iter().filter(|o| o.idempotency_key == key).count());
        self.verdict.set(Some(explain(&Run {
            outcomes: outcomes.clone(),
            orders_for_key,
            amount_cents: AMOUNT_CENTS,
        })));
        self.outcomes.set(outcomes);
    }

    fn forget_run(self) {
        self.outcomes.set(Vec::new());
        self.verdict.set(None);
    }
}

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let lab = StoredValue::new(current_lab());
    let naive = Pane::new(Server::Naive);
    let safe = Pane::new(Server::Safe);
    let (concurrent, set_concurrent) = signal(false);
    let (busy, set_busy) = signal(false);
    let (status, set_status) = signal(String::new());

    spawn_local(async move {
        let lab = lab.get_value();
        join(naive.refresh(&lab), safe.refresh(&lab)).await;
    });

    let place_order = move || {
        if busy.get_untracked() {
            return;
        }
        set_busy.set(true);
        let copies = if concurrent.get_untracked() {
            CONCURRENT_COPIES
        } else {
            1
        };
        set_status.set(format!("Sending {copies} request(s) to each server…"));
        spawn_local(async move {
            let lab = lab.get_value();
            // One key for this one purchase, made before the first attempt.
            let key = new_key();
            let order = NewOrder {
                item: ITEM.to_owned(),
                amount_cents: AMOUNT_CENTS,
            };
            let delay = if copies > 1 { RACE_WINDOW_MS } else { 0 };
            let send_copies = |server| {
                join_all((0..copies).map(|_| api::place_order(server, &lab, &key, &order, delay)))
            };
            let (naive_outcomes, safe_outcomes) =
                join(send_copies(Server::Naive), send_copies(Server::Safe)).await;
            join(
                naive.show_run(&lab, &key, naive_outcomes),
                safe.show_run(&lab, &key, safe_outcomes),
            )
            .await;
            set_status.set(format!(
                "Done: key {} was sent to both servers. Compare the two panes.",
                &key[..8]
            ));
            set_busy.set(false);
        });
    };

    let clear_orders = move |_| {
        set_busy.set(true);
        spawn_local(async move {
            let lab = lab.get_value();
            let (a, b) = join(
                api::clear_orders(Server::Naive, &lab),
                api::clear_orders(Server::Safe, &lab),
            )
            .await;
            naive.forget_run();
            safe.forget_run();
            join(naive.refresh(&lab), safe.refresh(&lab)).await;
            set_status.set(match a.and(b) {
                Ok(()) => "Both servers forgot this lab's orders and keys.".to_owned(),
                Err(error) => format!("Clearing failed: {error}"),
            });
            set_busy.set(false);
        });
    };

    view! {
        <main>
            <header class="intro">
                <h1>"Idempotency Lab"</h1>
                <p>
                    "Press " <strong>"Place order"</strong> " to buy one " {ITEM} " for " {money(AMOUNT_CENTS)}
                    ". The page sends the very same request, with one fresh Idempotency-Key, to two servers "
                    "and shows what each one stored. Tick " <strong>"Send concurrently"</strong>
                    " to send several copies at once, as a double click or a retrying app would."
                </p>
            </header>
            <form class="controls" on:submit=move |ev| {
                ev.prevent_default();
                place_order();
            }>
                <div class="control">
                    <input
                        type="checkbox"
                        id="send-concurrently"
                        prop:checked=concurrent
                        on:change=move |ev| set_concurrent.set(event_target_checked(&ev))
                    />
                    <label for="send-concurrently">"Send concurrently"</label>
                    <p class="hint" id="send-concurrently-hint">
                        {format!(
                            "{CONCURRENT_COPIES} copies at once, same key; each server takes {RACE_WINDOW_MS} ms \
                             between checking the key and creating the order, like a slow payment provider."
                        )}
                    </p>
                </div>
                <div class="buttons">
                    <button type="submit" disabled=busy>"Place order"</button>
                    <button type="button" class="secondary" on:click=clear_orders disabled=busy>"Clear orders"</button>
                </div>
            </form>
            <p class="status" role="status" aria-live="polite">{status}</p>
            <div class="panes">
                <PaneView
                    pane=naive
                    title="Naive"
                    how="Looks the key up; if it is new, creates the order, then saves the key."
                />
                <PaneView
                    pane=safe
                    title="Safe"
                    how="Saves the key first in a column the database keeps unique; only the request that saved it creates the order."
                />
            </div>
            <footer>
                "Your lab: " <code>{lab.get_value().to_string()}</code>
                ". Orders here are yours alone; this page's link opens the same lab."
            </footer>
        </main>
    }
}

/// One server's pane: its verdict, the responses to the last run and its orders.
#[component]
fn PaneView(pane: Pane, title: &'static str, how: &'static str) -> impl IntoView {
    let heading_id = format!("pane-{}", title.to_lowercase());
    let labelled_by = heading_id.clone();
    let orders = move || {
        let orders = pane.orders.get();
        let mut per_key: HashMap<String, usize> = HashMap::new();
        for order in &orders {
            *per_key.entry(order.idempotency_key.clone()).or_default() += 1;
        }
        orders
            .into_iter()
            .map(|order| {
                let duplicate = per_key[&order.idempotency_key] > 1;
                view! {
                    <li class:duplicate=duplicate>
                        {duplicate.then_some(view! { <strong class="flag">"⚠ duplicate "</strong> })}
                        {format!(
                            "{} · {} · key {} · {}",
                            order.item,
                            money(order.amount_cents),
                            &order.idempotency_key[..order.idempotency_key.len().min(8)],
                            order.created_at.format("%H:%M:%S%.3f UTC"),
                        )}
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <section class="pane" aria-labelledby=labelled_by>
            <h2 id=heading_id>{title}</h2>
            <p class="how">{how}</p>
            <p class="verdict">{move || pane.verdict.get()}</p>
            {move || pane.error.get().map(|error| view! { <p class="error" role="alert">{error}</p> })}
            <h3>"Responses to the last click"</h3>
            <ol class="outcomes">
                {move || pane.outcomes.get().into_iter().map(|outcome| view! { <li>{outcome.label()}</li> }).collect_view()}
            </ol>
            <h3 class="order-count">{move || format!("Orders stored: {}", pane.orders.get().len())}</h3>
            <ul class="orders">{orders}</ul>
        </section>
    }
}
