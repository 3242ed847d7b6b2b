//! The page's HTTP calls to the servers its panes show.

use futures::future::{Either, select};
use gloo_net::http::Request;
use gloo_timers::future::TimeoutFuture;
use lab_client::{AttemptPlan, Design, Outcome};
use lab_wire::headers::{
    IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, LAB_CANCELLATION, LAB_DELAY_MS, LAB_FAULT, LAB_ID,
    LAB_KEY_RETENTION_SECS, LAB_LOCK_TIMEOUT_SECS,
};
use lab_wire::{LabId, NewOrder, Order, Problem};

/// Sends one `POST /orders` attempt as `plan` says and reports what came back.
pub async fn place_order(
    server: Design,
    lab: &LabId,
    plan: &AttemptPlan,
    order: &NewOrder,
) -> Outcome {
    let controller = web_sys::AbortController::new().ok();
    let mut request = Request::post(&server.orders_url())
        .header(LAB_ID, lab.as_str())
        .header(IDEMPOTENCY_KEY, &plan.key)
        .header(LAB_DELAY_MS, &plan.server_delay_ms.to_string())
        .abort_signal(controller.as_ref().map(|c| c.signal()).as_ref());
    if plan.crash_after_create {
        request = request.header(LAB_FAULT, "crash-after-create");
    } else if plan.drop_response {
        request = request.header(LAB_FAULT, "drop-response");
    }
    if plan.key_retention_secs > 0 {
        request = request.header(LAB_KEY_RETENTION_SECS, &plan.key_retention_secs.to_string());
    }
    if plan.cancel_on_disconnect {
        request = request.header(LAB_CANCELLATION, "on-disconnect");
    }
    if plan.lock_timeout_secs > 0 {
        request = request.header(LAB_LOCK_TIMEOUT_SECS, &plan.lock_timeout_secs.to_string());
    }
    let request = match request.json(order) {
        Ok(request) => request,
        Err(error) => return Outcome::NetworkError(error.to_string()),
    };
    let sent = Box::pin(request.send());
    let answer = if plan.timeout_ms == 0 {
        sent.await
    } else {
        match select(sent, TimeoutFuture::new(plan.timeout_ms)).await {
            Either::Left((answer, _)) => answer,
            Either::Right(_) => {
                // Hang up, as a real client's timeout does; the server carries on.
                if let Some(controller) = controller {
                    controller.abort();
                }
                return Outcome::TimedOut;
            }
        }
    };
    match answer {
        Ok(response) => {
            let replayed = response.headers().get(IDEMPOTENT_REPLAYED).as_deref() == Some("true");
            let status = response.status();
            let title = if status == 201 {
                None
            } else {
                response
                    .json::<Problem>()
                    .await
                    .ok()
                    .map(|problem| problem.title)
            };
            Outcome::from_status(status, replayed, title)
        }
        // The browser cannot see why a connection closed; the page knows it asked for it.
        Err(_) if plan.crash_after_create => Outcome::Crashed,
        Err(_) if plan.drop_response => Outcome::Dropped,
        Err(error) => Outcome::NetworkError(error.to_string()),
    }
}

/// The lab's orders on `server`, oldest first.
pub async fn list_orders(server: Design, lab: &LabId) -> Result<Vec<Order>, String> {
    let response = Request::get(&server.orders_url())
        .header(LAB_ID, lab.as_str())
        .send()
        .await
        .map_err(|error| error.to_string())?;
    if !response.ok() {
        return Err(format!("the server answered {}", response.status()));
    }
    response.json().await.map_err(|error| error.to_string())
}

/// Deletes the lab's orders and keys on `server`.
pub async fn clear_orders(server: Design, lab: &LabId) -> Result<(), String> {
    let response = Request::delete(&server.orders_url())
        .header(LAB_ID, lab.as_str())
        .send()
        .await
        .map_err(|error| error.to_string())?;
    if response.status() == 204 {
        Ok(())
    } else {
        Err(format!("the server answered {}", response.status()))
    }
}
