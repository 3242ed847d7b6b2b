//! The page: scenario presets, the client's controls, the choice of servers,
//! and one pane per server shown.

use futures::future::{join, join_all};
use lab_client::{
    ClientForm, DEFAULT_PANES, Design, FieldGroup, PRESETS, Purchases, fields_of, parse_money,
    timeline,
};
use lab_wire::NewOrder;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api;
use crate::fields::{DesignField, FormFieldView, TextField};
use crate::lab_id::current_lab;
use crate::pane::PaneView;
use crate::runner::{RunContext, now_ms, run_purchase};
use crate::state::{Controls, Pane};

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let lab = StoredValue::new(current_lab());
    let controls = Controls::new();
    let first = Pane::new("pane-1", DEFAULT_PANES[0]);
    let second = Pane::new("pane-2", DEFAULT_PANES[1]);
    let purchases = StoredValue::new(Purchases::default());
    let steps_live = RwSignal::new(false);
    crate::live_steps::listen(&lab.get_value(), [first, second], purchases, steps_live);
    let busy = RwSignal::new(false);
    let status = RwSignal::new(String::new());
    let explanation = RwSignal::new(None::<(&'static str, &'static str)>);
    let large_text = RwSignal::new(false);
    // The shared time axis: ms since the run started, ticking while it runs.
    let now = RwSignal::new(0.0);
    let span = Signal::derive(move || {
        let now = now.get();
        first.attempts.with(|a| {
            second
                .attempts
                .with(|b| timeline::span_ms(a.iter().chain(b), now))
        })
    });

    spawn_local(async move {
        let lab = lab.get_value();
        join(first.refresh(&lab), second.refresh(&lab)).await;
    });

    let place_order = move || {
        if busy.get_untracked() {
            return;
        }
        let item = controls.item.get_untracked().trim().to_owned();
        let Some(amount_cents) = parse_money(&controls.amount.get_untracked()) else {
            status.set("The amount must be a number such as 4.50.".to_owned());
            return;
        };
        let order = NewOrder { item, amount_cents };
        if let Err(invalid) = order.validate() {
            status.set(format!("Nothing was sent: {invalid}."));
            return;
        }
        let policy = controls.policy();
        busy.set(true);
        status.set(format!(
            "Sending {} to each server…",
            if policy.copies == 1 {
                "one request".to_owned()
            } else {
                format!("{} copies", policy.copies)
            }
        ));
        let started_at = now_ms();
        now.set(0.0);
        let ticker = set_interval_with_handle(
            move || now.set(now_ms() - started_at),
            std::time::Duration::from_millis(100),
        )
        .ok();
        spawn_local(async move {
            let context = RunContext {
                lab: lab.get_value(),
                order,
                policy,
                purchases,
                started_at,
                status,
                steps_live,
            };
            run_purchase(context, [first, second]).await;
            if let Some(ticker) = ticker {
                ticker.clear();
            }
            now.set(now_ms() - started_at);
            status.set("Done. Compare the two panes: same requests, different servers.".to_owned());
            busy.set(false);
        });
    };

    let reset = move |_| {
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        spawn_local(async move {
            let lab = lab.get_value();
            // Every server, shown or not: one switched to later starts empty too.
            let cleared = join_all(
                Design::ALL
                    .into_iter()
                    .map(|design| api::clear_orders(design, &lab)),
            )
            .await;
            purchases.update_value(Purchases::clear);
            first.forget_run();
            second.forget_run();
            explanation.set(None);
            join(first.refresh(&lab), second.refresh(&lab)).await;
            status.set(match cleared.into_iter().collect::<Result<(), _>>() {
                Ok(()) => "Reset: every server forgot this lab's orders and keys.".to_owned(),
                Err(error) => format!("Reset failed: {error}"),
            });
            busy.set(false);
        });
    };

    let presets = PRESETS
        .iter()
        .map(|preset| {
            let run = move |_| {
                if busy.get_untracked() {
                    return;
                }
                controls.show(&preset.policy);
                let [left, right] = preset.panes;
                let lab = lab.get_value();
                first.switch_to(left, &lab);
                second.switch_to(right, &lab);
                explanation.set(Some((preset.name, preset.explanation)));
                place_order();
            };
            view! {
                <button type="button" class="preset" id=format!("preset-{}", preset.id) disabled=busy on:click=run>
                    {preset.name}
                </button>
            }
        })
        .collect_view();

    // The lab id is already in the URL (see `current_lab`), so this link reopens this lab.
    let lab_link = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default();
    let lab_link_text = lab_link.clone();

    view! {
        <main class:large=large_text>
            <header class="intro">
                <h1>"Idempotency Lab"</h1>
                <p>
                    "A shop sends one order to two servers. Each is asked to create the order once, even "
                    "when the request is sent twice: the client puts a random " <em>"Idempotency-Key"</em>
                    " on the request, made once per purchase. " <strong>"Naive"</strong>
                    " looks for the key before it creates the order; " <strong>"Safe"</strong>
                    " lets the database refuse a second copy of the key; " <strong>"Transactional"</strong>
                    " does the same and keeps key, order and answer in one transaction. Pick a scenario, "
                    "or choose the servers, set the controls yourself and press " <strong>"Place order"</strong> "."
                </p>
                <div class="field check display">
                    <input
                        type="checkbox"
                        id="large-text"
                        prop:checked=large_text
                        on:change=move |ev| large_text.set(event_target_checked(&ev))
                    />
                    <label for="large-text">"Large text (for a projector)"</label>
                </div>
            </header>

            <section class="presets" aria-labelledby="presets-title">
                <h2 id="presets-title">"Scenarios"</h2>
                <p class="hint">"Each one sets the controls below, then places an order."</p>
                <div class="preset-buttons">{presets}</div>
                {move || explanation.get().map(|(name, text)| view! {
                    <div class="explanation" role="note">
                        <h3>{format!("What to notice: {name}")}</h3>
                        <p>{text}</p>
                    </div>
                })}
            </section>

            <div class="workbench">
            <form class="controls" on:submit=move |ev| {
                ev.prevent_default();
                place_order();
            }>
                <fieldset>
                    <legend>"The client"</legend>
                    {form_fields(FieldGroup::Client, controls.form)}
                </fieldset>
                <fieldset>
                    <legend>"The server"</legend>
                    {form_fields(FieldGroup::Server, controls.form)}
                </fieldset>
                <fieldset>
                    <legend>"The servers"</legend>
                    <DesignField
                        id="first-pane"
                        label="First pane"
                        hint="The server the first pane (left, or on top on a phone) sends to and shows."
                        value=first.design
                        taken=second.design
                        disabled=busy
                        on_choose=Callback::new(move |design| first.switch_to(design, &lab.get_value()))
                    />
                    <DesignField
                        id="second-pane"
                        label="Second pane"
                        hint="The server the second pane shows. Each pane shows a different server."
                        value=second.design
                        taken=first.design
                        disabled=busy
                        on_choose=Callback::new(move |design| second.switch_to(design, &lab.get_value()))
                    />
                </fieldset>
                <fieldset>
                    <legend>"The order"</legend>
                    <TextField id="item" label="Item" hint="What is bought, 1 to 100 characters." value=controls.item />
                    <TextField
                        id="amount"
                        label="Amount"
                        hint="The price, such as 4.50."
                        value=controls.amount
                        inputmode="decimal"
                    />
                </fieldset>
                <div class="buttons">
                    <button type="submit" id="place-order" disabled=busy>"Place order"</button>
                    <button type="button" id="reset" class="secondary" disabled=busy on:click=reset>"Reset"</button>
                </div>
            </form>

            <div class="results">
            <p class="status" role="status" aria-live="polite">{status}</p>
            <div class="panes">
                <PaneView pane=first purchases=purchases span_ms=span now_ms=now steps_live=steps_live />
                <PaneView pane=second purchases=purchases span_ms=span now_ms=now steps_live=steps_live />
            </div>
            </div>
            </div>

            <footer>
                "Your lab: " <code>{lab.get_value().to_string()}</code>
                ". Orders here are yours alone. To open this lab elsewhere, use this link: "
                <a href=lab_link>{lab_link_text}</a>
            </footer>
        </main>
    }
}

/// The controls of one fieldset, in the table's order.
fn form_fields(group: FieldGroup, form: RwSignal<ClientForm>) -> impl IntoView {
    fields_of(group)
        .map(|field| view! { <FormFieldView field=field form=form /> })
        .collect_view()
}
