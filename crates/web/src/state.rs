//! The page's state: the client controls and what each pane shows.

use lab_client::{AttemptRecord, ClientPolicy, Design};
use lab_wire::{Order, Step};
use leptos::prelude::*;

use crate::api;

/// The client controls, one signal per form control.
#[derive(Clone, Copy)]
pub struct Controls {
    pub drop_response: RwSignal<bool>,
    pub concurrent: RwSignal<bool>,
    pub copies: RwSignal<u32>,
    pub server_delay_ms: RwSignal<u32>,
    pub timeout_ms: RwSignal<u32>,
    pub retries: RwSignal<u32>,
    pub backoff_ms: RwSignal<u32>,
    pub new_key_per_attempt: RwSignal<bool>,
    pub crash_after_create: RwSignal<bool>,
    pub change_order_on_retry: RwSignal<bool>,
    pub key_retention_secs: RwSignal<u32>,
    pub lock_timeout_secs: RwSignal<u32>,
    pub cancel_on_disconnect: RwSignal<bool>,
    pub item: RwSignal<String>,
    pub amount: RwSignal<String>,
}

impl Controls {
    pub fn new() -> Self {
        Self {
            drop_response: RwSignal::new(false),
            concurrent: RwSignal::new(false),
            copies: RwSignal::new(3),
            server_delay_ms: RwSignal::new(300),
            timeout_ms: RwSignal::new(0),
            retries: RwSignal::new(2),
            backoff_ms: RwSignal::new(300),
            new_key_per_attempt: RwSignal::new(false),
            crash_after_create: RwSignal::new(false),
            change_order_on_retry: RwSignal::new(false),
            key_retention_secs: RwSignal::new(0),
            lock_timeout_secs: RwSignal::new(0),
            cancel_on_disconnect: RwSignal::new(false),
            item: RwSignal::new("coffee".to_owned()),
            amount: RwSignal::new("4.50".to_owned()),
        }
    }

    /// The client behaviour the controls describe now.
    pub fn policy(&self) -> ClientPolicy {
        let narrow = |value: u32| u8::try_from(value).unwrap_or(u8::MAX);
        ClientPolicy {
            copies: if self.concurrent.get_untracked() {
                narrow(self.copies.get_untracked())
            } else {
                1
            },
            retries: narrow(self.retries.get_untracked()),
            timeout_ms: self.timeout_ms.get_untracked(),
            backoff_ms: self.backoff_ms.get_untracked(),
            new_key_per_attempt: self.new_key_per_attempt.get_untracked(),
            drop_response: self.drop_response.get_untracked(),
            crash_after_create: self.crash_after_create.get_untracked(),
            change_order_on_retry: self.change_order_on_retry.get_untracked(),
            key_retention_secs: self.key_retention_secs.get_untracked(),
            lock_timeout_secs: self.lock_timeout_secs.get_untracked(),
            cancel_on_disconnect: self.cancel_on_disconnect.get_untracked(),
            server_delay_ms: self.server_delay_ms.get_untracked(),
        }
        .clamped()
    }

    /// Sets every control to show `policy`.
    pub fn show(&self, policy: &ClientPolicy) {
        self.concurrent.set(policy.copies > 1);
        if policy.copies > 1 {
            self.copies.set(u32::from(policy.copies));
        }
        self.retries.set(u32::from(policy.retries));
        self.backoff_ms.set(policy.backoff_ms);
        self.timeout_ms.set(policy.timeout_ms);
        self.new_key_per_attempt.set(policy.new_key_per_attempt);
        self.drop_response.set(policy.drop_response);
        self.crash_after_create.set(policy.crash_after_create);
        self.change_order_on_retry.set(policy.change_order_on_retry);
        self.key_retention_secs.set(policy.key_retention_secs);
        self.lock_timeout_secs.set(policy.lock_timeout_secs);
        self.cancel_on_disconnect.set(policy.cancel_on_disconnect);
        self.server_delay_ms.set(policy.server_delay_ms);
    }
}

/// What one pane shows: the server it shows, that server's answers to
/// the last run, its orders, and the steps it reported.
#[derive(Clone, Copy)]
pub struct Pane {
    /// `pane-1` or `pane-2`: the id its heading carries.
    pub id: &'static str,
    pub design: RwSignal<Design>,
    pub attempts: RwSignal<Vec<AttemptRecord>>,
    pub orders: RwSignal<Vec<Order>>,
    pub verdict: RwSignal<Option<String>>,
    pub error: RwSignal<Option<String>>,
    /// The last run's steps on this pane's server, as they arrive.
    pub steps: RwSignal<Vec<Step>>,
}

impl Pane {
    pub fn new(id: &'static str, design: Design) -> Self {
        Self {
            id,
            design: RwSignal::new(design),
            attempts: RwSignal::new(Vec::new()),
            orders: RwSignal::new(Vec::new()),
            verdict: RwSignal::new(None),
            error: RwSignal::new(None),
            steps: RwSignal::new(Vec::new()),
        }
    }

    /// The server this pane shows now.
    pub fn server(self) -> Design {
        self.design.get_untracked()
    }

    /// Reloads the orders from the server.
    pub async fn refresh(self, lab: &lab_wire::LabId) {
        let server = self.server();
        let answer = api::list_orders(server, lab).await;
        if self.server() != server {
            // A learner switched servers while the answer was on its way.
            return;
        }
        match answer {
            Ok(orders) => {
                self.orders.set(orders);
                self.error.set(None);
            }
            Err(error) => self
                .error
                .set(Some(format!("Could not load the orders: {error}"))),
        }
    }

    /// Forgets the last run.
    pub fn forget_run(self) {
        self.attempts.set(Vec::new());
        self.verdict.set(None);
        self.steps.set(Vec::new());
    }

    /// Shows `design` from now on: its orders, and no run yet.
    pub fn switch_to(self, design: Design, lab: &lab_wire::LabId) {
        if self.server() == design {
            return;
        }
        self.design.set(design);
        self.forget_run();
        self.orders.set(Vec::new());
        let lab = lab.clone();
        leptos::task::spawn_local(async move { self.refresh(&lab).await });
    }
}
