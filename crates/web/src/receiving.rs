//! The receiving side: two of the shop's webhook receivers side by side
//! (naive and inbox, like the designs' panes), the scenarios that have
//! the payment provider deliver to both, and what each did: orders paid,
//! charges, parcels shipped, the verdict and every delivery attempt in
//! order, in the learner's language.

use futures::future::join;
use lab_client::receiving::{
    RECEIVING_SCENARIOS, ReceivingScenario, attempt_line, receiver_about, receiver_title, verdict,
};
use lab_i18n::i18n::td_string;
use lab_wire::LabSecret;
use lab_wire::webhook::{DeliveryPlan, DeliveryRun, ReceiverDesign, Shipments};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::ApiError;
use crate::receiving_api;
use crate::words::{say, use_locale};

/// One receiver's pane: which receiver, and its last run.
#[derive(Clone, Copy)]
struct ReceiverPane {
    receiver: RwSignal<ReceiverDesign>,
    run: RwSignal<Option<DeliveryRun>>,
    shipped: RwSignal<Option<Shipments>>,
}

impl ReceiverPane {
    fn new(receiver: ReceiverDesign) -> Self {
        Self {
            receiver: RwSignal::new(receiver),
            run: RwSignal::new(None),
            shipped: RwSignal::new(None),
        }
    }

    /// Runs `plan` on this pane's receiver, from a fresh start, and reads
    /// what it shipped.
    async fn run(self, lab: &LabSecret, plan: DeliveryPlan) -> Result<(), ApiError> {
        let receiver = self.receiver.get_untracked();
        self.run.set(None);
        self.shipped.set(None);
        receiving_api::clear_shipments(lab, receiver).await?;
        let run = receiving_api::deliver(lab, receiver, plan).await?;
        let shipped = receiving_api::shipments(lab, receiver).await?;
        self.run.set(Some(run));
        self.shipped.set(Some(shipped));
        Ok(())
    }
}

/// Where a run stands.
#[derive(Clone, PartialEq)]
enum RunState {
    Idle,
    Delivering,
    Done,
    Failed(ApiError),
}

/// The receiving side's section of the page.
#[component]
pub fn ReceivingSide(
    lab: StoredValue<LabSecret>,
    #[prop(into)] hidden: Signal<bool>,
) -> impl IntoView {
    let panes = [
        ReceiverPane::new(ReceiverDesign::Naive),
        ReceiverPane::new(ReceiverDesign::Inbox),
    ];
    let state = RwSignal::new(RunState::Idle);
    let explained = RwSignal::new(None::<ReceivingScenario>);
    let busy = Signal::derive(move || state.get() == RunState::Delivering);
    let scenarios = RECEIVING_SCENARIOS
        .into_iter()
        .map(|scenario| {
            let start = move |_| {
                if busy.get_untracked() {
                    return;
                }
                state.set(RunState::Delivering);
                explained.set(Some(scenario));
                spawn_local(async move {
                    let lab = lab.get_value();
                    let (one, two) = join(
                        panes[0].run(&lab, scenario.plan),
                        panes[1].run(&lab, scenario.plan),
                    )
                    .await;
                    state.set(match one.and(two) {
                        Ok(()) => RunState::Done,
                        Err(error) => RunState::Failed(error),
                    });
                });
            };
            view! {
                <button type="button" class="preset" id=format!("receiving-{}", scenario.id) disabled=busy on:click=start>
                    {say(scenario.name)}
                </button>
            }
        })
        .collect_view();
    let status = say(move |l| match state.get() {
        RunState::Idle => String::new(),
        RunState::Delivering => td_string!(l, receiving.delivering).into(),
        RunState::Done => td_string!(l, receiving.done).into(),
        RunState::Failed(error) => td_string!(l, receiving.failed, error = error.text(l)),
    });
    let state_name = move || match state.get() {
        RunState::Idle => "idle",
        RunState::Delivering => "delivering",
        RunState::Done => "done",
        RunState::Failed(_) => "failed",
    };
    view! {
        <section class="presets receiving" id="receiving" aria-labelledby="receiving-title" class:hidden=hidden>
            <h2 id="receiving-title">{say(|l| td_string!(l, receiving.title).into())}</h2>
            <p class="hint">{say(|l| td_string!(l, receiving.intro).into())}</p>
            <div class="receiver-choice">
                <ReceiverField index=0 panes=panes busy=busy />
                <ReceiverField index=1 panes=panes busy=busy />
            </div>
            <h3>{say(|l| td_string!(l, receiving.scenarios).into())}</h3>
            <div class="preset-buttons">{scenarios}</div>
            <p class="status" role="status" aria-live="polite" id="receiving-status" data-state=state_name>{status}</p>
            {move || explained.get().map(|scenario| view! {
                <div class="explanation" role="note">
                    <h4>{say(move |l| td_string!(l, page.what_to_notice, name = (scenario.name)(l)))}</h4>
                    <p>{say(scenario.explanation)}</p>
                </div>
            })}
            <div class="receiver-panes">
                <ReceiverPaneView pane=panes[0] index=0 />
                <ReceiverPaneView pane=panes[1] index=1 />
            </div>
        </section>
    }
}

/// The choice of one pane's receiver; choosing the other pane's swaps them.
#[component]
fn ReceiverField(index: usize, panes: [ReceiverPane; 2], busy: Signal<bool>) -> impl IntoView {
    let id = format!("receiver-{}", index + 1);
    let label = say(move |l| {
        if index == 0 {
            td_string!(l, receiving.first_pane).into()
        } else {
            td_string!(l, receiving.second_pane).into()
        }
    });
    let value = panes[index].receiver;
    let options = ReceiverDesign::ALL
        .into_iter()
        .map(|receiver| {
            view! {
                <option value=receiver.name() prop:selected=move || value.get() == receiver>
                    {say(move |l| receiver_title(receiver, l))}
                </option>
            }
        })
        .collect_view();
    let choose = move |ev| {
        let Some(chosen) = ReceiverDesign::from_name(&event_target_value(&ev)) else {
            return;
        };
        let other = panes[1 - index].receiver;
        if other.get_untracked() == chosen {
            other.set(value.get_untracked());
        }
        value.set(chosen);
        for pane in panes {
            pane.run.set(None);
            pane.shipped.set(None);
        }
    };
    view! {
        <div class="field select">
            <label for=id.clone()>{label}</label>
            <select id=id disabled=busy on:change=choose>{options}</select>
        </div>
    }
}

/// One receiver's pane: what it is, and what its last run came to.
#[component]
fn ReceiverPaneView(pane: ReceiverPane, index: usize) -> impl IntoView {
    let locale = use_locale();
    let title_id = format!("receiver-pane-{}-title", index + 1);
    let labelled_by = title_id.clone();
    let receiver = pane.receiver;
    let paid = move || {
        pane.run
            .with(|run| run.as_ref().map_or(0, |run| run.events.len() as u64))
    };
    let counts = move || {
        pane.shipped.get().map(|shipped| {
            let orders = paid();
            let text = td_string!(
                locale.get(),
                receiving.counts,
                orders = orders,
                charges = orders,
                shipments = shipped.shipments
            );
            let verdict_text = verdict(shipped.shipments, orders, locale.get());
            let duplicate = shipped.shipments > orders;
            view! {
                <p class="receiver-counts" data-orders=orders data-shipments=shipped.shipments>{text}</p>
                <p class="verdict" data-duplicate=duplicate.to_string()>{verdict_text}</p>
            }
        })
    };
    let attempts = move || {
        pane.run.with(|run| {
            run.as_ref().map(|run| {
                let lines = run
                    .attempts
                    .iter()
                    .map(|attempt| {
                        let line = attempt_line(attempt, &run.events, locale.get());
                        let acknowledged = attempt.outcome.acknowledged();
                        view! { <li data-acknowledged=acknowledged.to_string()>{line}</li> }
                    })
                    .collect_view();
                view! {
                    <h4>{td_string!(locale.get(), receiving.happened)}</h4>
                    <ol class="attempts">{lines}</ol>
                }
            })
        })
    };
    view! {
        <section class="pane receiver" data-receiver=move || receiver.get().name() aria-labelledby=labelled_by>
            <h3 id=title_id>{move || receiver_title(receiver.get(), locale.get())}</h3>
            <p class="how">{move || receiver_about(receiver.get(), locale.get())}</p>
            {counts}
            {attempts}
        </section>
    }
}
