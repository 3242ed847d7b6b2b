//! The servers' steps, live. One `EventSource` on `/api/steps?secret=…`
//! carries every server's steps, each event named after its server, so
//! watching both panes costs one of the browser's few connections per host.
//! A step goes to each pane that shows its server, if it belongs to the
//! purchase being run. When the page falls so far behind that the server
//! drops steps, the stream says how many, and the pane says its diagram
//! is incomplete.

use lab_client::{Design, Purchases};
use lab_wire::{LabSecret, STEPS_MISSED_EVENT, Step, StepsMissed};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::convert::FromWasmAbi;
use web_sys::{EventSource, MessageEvent};

use crate::state::Pane;

/// Opens the stream for the page's lifetime; `connected` follows whether it is open.
pub fn listen(
    lab: &LabSecret,
    panes: [Pane; 2],
    purchases: StoredValue<Purchases>,
    connected: RwSignal<bool>,
) {
    let of_this_run = move |key: &str| {
        purchases.with_value(|p| p.current().is_some() && p.purchase_of(key) == p.current())
    };
    listen_to(
        lab,
        connected,
        move |missed: StepsMissed| {
            if purchases.with_value(|p| p.current().is_none()) {
                return;
            }
            for pane in panes {
                if pane.server().name() == missed.of {
                    pane.steps_missed.update(|count| *count += missed.missed);
                }
            }
        },
        move |design, step: Step| {
            if !of_this_run(&step.key) {
                return;
            }
            for pane in panes {
                if pane.server() == design {
                    pane.steps.update(|steps| steps.push(step.clone()));
                }
            }
        },
    );
}

/// Opens the stream for the page's lifetime and hands each step, with the
/// server that took it, to `on_step`, and each count of steps dropped to
/// `on_missed`.
pub fn listen_to(
    lab: &LabSecret,
    connected: RwSignal<bool>,
    on_missed: impl Fn(StepsMissed) + 'static,
    on_step: impl Fn(Design, Step) + Clone + 'static,
) {
    let Ok(source) = EventSource::new(&format!("/api/steps?secret={}", lab.as_str())) else {
        return;
    };
    on(&source, "open", move |_: web_sys::Event| {
        connected.set(true)
    });
    // The browser reconnects by itself; until then the diagrams miss steps.
    on(&source, "error", move |_: web_sys::Event| {
        connected.set(false)
    });
    on(&source, STEPS_MISSED_EVENT, move |event: MessageEvent| {
        if let Some(missed) = data_of::<StepsMissed>(&event) {
            on_missed(missed);
        }
    });
    for design in Design::ALL {
        let on_step = on_step.clone();
        on(&source, design.name(), move |event: MessageEvent| {
            if let Some(step) = data_of::<Step>(&event) {
                on_step(design, step);
            }
        });
    }
}

/// An event's JSON data; `None` for anything the page cannot read.
fn data_of<T: serde::de::DeserializeOwned>(event: &MessageEvent) -> Option<T> {
    serde_json::from_str(&event.data().as_string()?).ok()
}

/// Adds a listener that lives as long as the page.
fn on<E: FromWasmAbi + 'static>(source: &EventSource, name: &str, handle: impl FnMut(E) + 'static) {
    let listener = Closure::<dyn FnMut(E)>::new(handle);
    if source
        .add_event_listener_with_callback(name, listener.as_ref().unchecked_ref())
        .is_ok()
    {
        // The page never stops listening: let the closure live on in JS.
        listener.forget();
    }
}
