//! The page's HTTP calls to the two servers.

use gloo_net::http::Request;
use lab_client::Outcome;
use lab_wire::headers::{IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, LAB_DELAY_MS, LAB_ID};
use lab_wire::{LabId, NewOrder, Order, Problem};

/// One of the two servers the page compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Server {
    /// Check for the key, then insert.
    Naive,
    /// Claim the key in a UNIQUE column first.
    Safe,
}

impl Server {
    fn orders_url(self) -> &'static str {
        match self {
            Self::Naive => "/api/naive/orders",
            Self::Safe => "/api/safe/orders",
        }
    }
}

/// Sends one `POST /orders` attempt and reports what came back.
pub async fn place_order(
    server: Server,
    lab: &LabId,
    key: &str,
    order: &NewOrder,
    delay_ms: u32,
) -> Outcome {
    let request = Request::post(server.orders_url())
        .header(LAB_ID, lab.as_str())
        .header(IDEMPOTENCY_KEY, key)
        .header(LAB_DELAY_MS, &delay_ms.to_string())
        .json(order);
    let response = match request {
        Ok(request) => request.send().await,
        Err(error) => return Outcome::NoResponse(error.to_string()),
    };
    match response {
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
        Err(error) => Outcome::NoResponse(error.to_string()),
    }
}

/// The lab's orders on `server`, oldest first.
pub async fn list_orders(server: Server, lab: &LabId) -> Result<Vec<Order>, String> {
    let response = Request::get(server.orders_url())
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
pub async fn clear_orders(server: Server, lab: &LabId) -> Result<(), String> {
    let response = Request::delete(server.orders_url())
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
