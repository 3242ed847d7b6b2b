//! The page's state: the client controls and what each pane shows.

use lab_client::verdict::RunFacts;
use lab_client::{AttemptRecord, ClientForm, ClientPolicy, Design, Locale, verdict};
use lab_wire::{Order, Step};
use leptos::prelude::*;

use crate::api::{self, ApiError};

/// The form: the client and server controls (one signal over the form's
/// model, drawn from [`lab_client::form::FORM_FIELDS`]) and the order.
#[derive(Clone, Copy)]
pub struct Controls {
    pub form: RwSignal<ClientForm>,
    pub item: RwSignal<String>,
    pub amount: RwSignal<String>,
}

impl Controls {
    /// The page's starting controls; `item` is what is bought, in the
    /// learner's language.
    pub fn new(item: String) -> Self {
        Self {
            form: RwSignal::new(ClientForm::default()),
            item: RwSignal::new(item),
            amount: RwSignal::new("4.50".to_owned()),
        }
    }

    /// The client behaviour the controls describe now.
    pub fn policy(&self) -> ClientPolicy {
        self.form.with_untracked(ClientForm::policy)
    }

    /// Sets every control to show `policy`.
    pub fn show(&self, policy: &ClientPolicy) {
        self.form.update(|form| form.show(policy));
    }
}

/// What the last run left on one server: what the verdict is built from,
/// so it can be said again in another language.
#[derive(Debug, Clone)]
pub struct RunSummary {
    pub design: Design,
    pub policy: ClientPolicy,
    pub attempts: Vec<AttemptRecord>,
    /// Orders the server holds for the run's purchase.
    pub orders: usize,
    pub amount_cents: i64,
    /// With side effects: the run's charges, the cents they took, and the e-mails sent.
    pub effects: Option<(u64, i64, u64)>,
}

impl RunSummary {
    /// The verdict in `locale`'s words.
    pub fn verdict(&self, locale: Locale) -> String {
        let said = verdict(
            &RunFacts {
                design: self.design,
                policy: &self.policy,
                attempts: &self.attempts,
                orders: self.orders,
                amount_cents: self.amount_cents,
            },
            locale,
        );
        match self.effects {
            Some((charges, cents, emails)) => format!(
                "{said} {}",
                lab_client::verdict::side_effects_said(charges, cents, emails, locale)
            ),
            None => said,
        }
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
    pub verdict: RwSignal<Option<RunSummary>>,
    /// Why the orders could not be loaded, if they could not.
    pub error: RwSignal<Option<ApiError>>,
    /// The last run's steps on this pane's server, as they arrive.
    pub steps: RwSignal<Vec<Step>>,
    /// How many of them the stream dropped because the page fell behind.
    pub steps_missed: RwSignal<u64>,
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
            steps_missed: RwSignal::new(0),
        }
    }

    /// The server this pane shows now.
    pub fn server(self) -> Design {
        self.design.get_untracked()
    }

    /// Reloads the orders from the server.
    pub async fn refresh(self, lab: &lab_wire::LabSecret) {
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
            Err(error) => self.error.set(Some(error)),
        }
    }

    /// Whether the server has reported the end of every request of the
    /// last run (at least one per attempt sent).
    pub fn server_is_done(self) -> bool {
        let sent = self.attempts.with_untracked(Vec::len);
        self.steps
            .with_untracked(|steps| lab_client::every_request_ended(steps, sent))
    }

    /// Forgets the last run.
    pub fn forget_run(self) {
        self.attempts.set(Vec::new());
        self.verdict.set(None);
        self.steps.set(Vec::new());
        self.steps_missed.set(0);
    }

    /// Shows `design` from now on: its orders, and no run yet.
    pub fn switch_to(self, design: Design, lab: &lab_wire::LabSecret) {
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
