//! One press of "Place order": the same client behaviour against both
//! servers at once, every attempt recorded as it starts and ends.

use futures::future::{join, join_all};
use gloo_timers::future::TimeoutFuture;
use lab_client::record::{PaneRecord, RunRecord};
use lab_client::verdict::{CHANGED_ORDER_EXTRA_CENTS, side_effects_of};
use lab_client::{AttemptPlan, AttemptRecord, ClientPolicy, Outcome, Purchases};
use lab_wire::{LabSecret, NewOrder, Order};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::{self, ApiError};
use crate::lab_id::new_key;
use crate::state::{Pane, RunSummary};
use crate::status::Status;

/// Milliseconds on the page's clock.
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|window| window.performance())
        .map_or(0.0, |performance| performance.now())
}

/// Everything one run needs, shared by both panes.
#[derive(Clone)]
pub struct RunContext {
    pub lab: LabSecret,
    pub order: NewOrder,
    pub policy: ClientPolicy,
    pub purchases: StoredValue<Purchases>,
    pub started_at: f64,
    pub status: RwSignal<Status>,
    /// Whether the live step stream is open (see [`crate::live_steps`]).
    pub steps_live: RwSignal<bool>,
    /// The lesson step this run is (1–10), if it is one.
    pub lesson_step: Option<u8>,
    /// The run's permalink once it is saved, or why it was not.
    pub saved: RwSignal<Option<Result<String, ApiError>>>,
}

/// Runs the purchase against both panes' servers; resolves when all is done.
pub async fn run_purchase(context: RunContext, panes: [Pane; 2]) {
    wait_for_the_step_stream(context.steps_live).await;
    let purchase = context
        .purchases
        .try_update_value(|p| p.start())
        .unwrap_or(0);
    // One key for this purchase, made before the first attempt; or, for a
    // client that sends none, "" (which is also how the servers' steps name
    // a request without a key, so the step stream still finds this run's).
    let purchase_key = if context.policy.no_key {
        String::new()
    } else {
        new_key()
    };
    context
        .purchases
        .update_value(|p| p.add_key(purchase, &purchase_key));
    for pane in panes {
        pane.forget_run();
    }
    // An order made without a key can be told apart only by being new.
    let known_before = panes.map(|pane| {
        pane.orders
            .with_untracked(|orders| orders.iter().map(|order| order.id).collect::<Vec<_>>())
    });
    let [first, second] = panes;
    // Both servers at once; the first pane's copies are started first.
    join(
        run_on_pane(&context, first, purchase, &purchase_key),
        run_on_pane(&context, second, purchase, &purchase_key),
    )
    .await;
    wait_for_abandoned_attempts(&context, &panes).await;
    let mut saved_panes = Vec::new();
    for (pane, known_before) in panes.into_iter().zip(known_before) {
        pane.refresh(&context.lab).await;
        pane.orders.with_untracked(|orders| {
            context.purchases.update_value(|p| {
                for order in orders {
                    if order.idempotency_key.is_empty() && !known_before.contains(&order.id) {
                        p.add_keyless_order(purchase, order.id);
                    }
                }
            })
        });
        let run_orders: Vec<Order> = pane.orders.with_untracked(|orders| {
            context.purchases.with_value(|p| {
                orders
                    .iter()
                    .filter(|order| p.purchase_of_order(order) == Some(purchase))
                    .cloned()
                    .collect()
            })
        });
        let orders = run_orders.len();
        // Each new charge and each e-mail is a step the server reported.
        let effects = context.policy.side_effects.then(|| {
            let (charges, emails) = pane.steps.with_untracked(|steps| side_effects_of(steps));
            (charges, charges as i64 * context.order.amount_cents, emails)
        });
        saved_panes.push(PaneRecord {
            server: pane.server(),
            attempts: pane.attempts.get_untracked(),
            steps: pane.steps.get_untracked(),
            steps_missed: pane.steps_missed.get_untracked(),
            orders_of_run: orders as u32,
            orders: run_orders,
            effects,
        });
        pane.verdict.set(Some(RunSummary {
            design: pane.server(),
            policy: context.policy.clone(),
            attempts: pane.attempts.get_untracked(),
            orders,
            amount_cents: context.order.amount_cents,
            effects,
        }));
    }
    // Saved for its permalink, so a projector, a bug report or homework can show it again.
    let record = RunRecord {
        order: context.order.clone(),
        policy: context.policy.clone(),
        lesson_step: context.lesson_step,
        panes: saved_panes,
    };
    let saved = api::save_run(&context.lab, &record).await;
    context.saved.set(Some(saved.map(|saved| saved.url)));
}

/// Steps taken before the stream is open are lost, so a run pressed right
/// after the page opened waits for it a moment (2 s at most: the orders and
/// verdicts do not need it).
async fn wait_for_the_step_stream(steps_live: RwSignal<bool>) {
    for _ in 0..40 {
        if steps_live.get_untracked() {
            return;
        }
        TimeoutFuture::new(50).await;
    }
}

/// A client that timed out has hung up, but the server is still working on
/// that attempt and may yet create an order. Wait until each server has
/// reported the end of every request it received, so the orders and the
/// verdict include what they did. Without the step stream, wait as long as
/// the server's processing time says it must take.
async fn wait_for_abandoned_attempts(context: &RunContext, panes: &[Pane; 2]) {
    let abandoned = panes.iter().any(|pane| {
        pane.attempts.with_untracked(|attempts| {
            attempts
                .iter()
                .any(|attempt| attempt.outcome == Some(Outcome::TimedOut))
        })
    });
    if !abandoned {
        return;
    }
    context.status.set(Status::WaitingForAbandoned);
    let delay = f64::from(context.policy.server_delay_ms);
    if !context.steps_live.get_untracked() {
        TimeoutFuture::new((delay + 500.0) as u32).await;
        return;
    }
    // Bounded, should a request never reach the server at all.
    let give_up_at = now_ms() + delay + ABANDONED_WORK_GRACE_MS;
    while now_ms() < give_up_at && !panes.iter().all(|pane| pane.server_is_done()) {
        TimeoutFuture::new(50).await;
    }
}

/// How much longer than its processing time an abandoned request may take
/// before the page stops waiting for its end.
const ABANDONED_WORK_GRACE_MS: f64 = 10_000.0;

async fn run_on_pane(context: &RunContext, pane: Pane, purchase: u32, purchase_key: &str) {
    let copies = (1..=context.policy.copies).map(|copy| {
        lab_client::run_copy(
            &context.policy,
            copy,
            purchase_key,
            move || {
                let key = new_key();
                context
                    .purchases
                    .update_value(|p| p.add_key(purchase, &key));
                key
            },
            move |plan| attempt(context, pane, plan),
            TimeoutFuture::new,
        )
    });
    join_all(copies).await;
}

/// One HTTP attempt, recorded on the pane's timeline as it starts and ends.
async fn attempt(context: &RunContext, pane: Pane, plan: AttemptPlan) -> Outcome {
    let started_ms = now_ms() - context.started_at;
    let index = pane.attempts.try_update(|attempts| {
        attempts.push(AttemptRecord {
            copy: plan.copy,
            number: plan.number,
            key: plan.key.clone(),
            started_ms,
            ended_ms: None,
            outcome: None,
        });
        attempts.len() - 1
    });
    let order = if plan.changed_order {
        NewOrder {
            amount_cents: context.order.amount_cents + CHANGED_ORDER_EXTRA_CENTS,
            ..context.order.clone()
        }
    } else {
        context.order.clone()
    };
    let outcome = if plan.read_only {
        api::read_orders(pane.server(), &context.lab).await
    } else {
        api::place_order(pane.server(), &context.lab, &plan, &order).await
    };
    let ended_ms = now_ms() - context.started_at;
    pane.attempts.update(|attempts| {
        if let Some(record) = index.and_then(|i| attempts.get_mut(i)) {
            record.ended_ms = Some(ended_ms);
            record.outcome = Some(outcome.clone());
        }
    });
    // Show new orders as they appear, without holding up the client.
    let lab = context.lab.clone();
    spawn_local(async move { pane.refresh(&lab).await });
    outcome
}
