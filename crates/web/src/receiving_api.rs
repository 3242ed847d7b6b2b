//! The page's HTTP calls for the receiving side: a delivery run, and what
//! a receiver shipped.

use gloo_net::http::Request;
use lab_wire::LabSecret;
use lab_wire::headers::LAB_SECRET;
use lab_wire::webhook::{
    DeliveryAsk, DeliveryPlan, DeliveryRun, ReceiverDesign, Shipments, Signing,
};

use crate::api::ApiError;

/// `POST /api/webhooks/deliveries`: pays for an order and has the provider
/// deliver to `receiver` as `plan` says.
pub async fn deliver(
    lab: &LabSecret,
    receiver: ReceiverDesign,
    plan: DeliveryPlan,
) -> Result<DeliveryRun, ApiError> {
    let ask = DeliveryAsk {
        receiver,
        plan,
        signing: Signing::LabSecret,
        amount_cents: 1200,
    };
    let response = Request::post("/api/webhooks/deliveries")
        .header(LAB_SECRET, lab.as_str())
        .json(&ask)
        .map_err(|error| ApiError::Unreadable(error.to_string()))?
        .send()
        .await
        .map_err(|error| ApiError::Network(error.to_string()))?;
    if response.status() != 200 {
        return Err(ApiError::Status(response.status()));
    }
    response
        .json()
        .await
        .map_err(|error| ApiError::Unreadable(error.to_string()))
}

fn shipments_url(receiver: ReceiverDesign) -> String {
    format!("/api/receivers/{}/shipments", receiver.name())
}

/// What `receiver` shipped for the lab.
pub async fn shipments(lab: &LabSecret, receiver: ReceiverDesign) -> Result<Shipments, ApiError> {
    let response = Request::get(&shipments_url(receiver))
        .header(LAB_SECRET, lab.as_str())
        .send()
        .await
        .map_err(|error| ApiError::Network(error.to_string()))?;
    if !response.ok() {
        return Err(ApiError::Status(response.status()));
    }
    response
        .json()
        .await
        .map_err(|error| ApiError::Unreadable(error.to_string()))
}

/// Forgets what `receiver` shipped for the lab (and the events the inbox processed).
pub async fn clear_shipments(lab: &LabSecret, receiver: ReceiverDesign) -> Result<(), ApiError> {
    let response = Request::delete(&shipments_url(receiver))
        .header(LAB_SECRET, lab.as_str())
        .send()
        .await
        .map_err(|error| ApiError::Network(error.to_string()))?;
    match response.status() {
        204 => Ok(()),
        status => Err(ApiError::Status(status)),
    }
}
