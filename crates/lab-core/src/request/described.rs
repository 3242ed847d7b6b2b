//! The headers of `POST /orders` as the OpenAPI document describes them:
//! types for utoipa that are never built. What enforces them is in the
//! parent module and in [`crate::controls`].

/// The headers `POST /orders` reads besides the lab's credentials (see
/// [`lab_platform::access::CredentialHeaders`]), for the OpenAPI document. The
/// checks that enforce them are `key_from_headers` and
/// [`crate::DemoControls::from_headers`]; the patterns and ranges say the same.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code, reason = "describes headers for utoipa; never built")]
pub struct OrderHeaders {
    /// The client's key for this order: made once, before the first
    /// attempt (a UUID), and sent again on every retry. 1–255 visible
    /// ASCII characters, optionally in double quotes. (A lab demo may leave
    /// it out with `Lab-Missing-Key: create`; the contract requires it.)
    #[param(
        rename = "Idempotency-Key",
        pattern = r#"^(?!""$)(?:[!-~]{1,255}|"[!-~]{1,255}")$"#,
        example = "3f2a9c1e-0b7d-4c55-9a0e-5d1f7e2b8c44"
    )]
    idempotency_key: String,
    /// Demo control: milliseconds the server waits between looking at the
    /// key and creating the order (the race window).
    #[param(
        rename = "Lab-Delay-Ms",
        required = false,
        minimum = 0,
        maximum = 10000
    )]
    lab_delay_ms: u64,
    /// Demo control: `drop-response` does the work and hangs up without
    /// answering; `crash-after-create` stops right after the order is
    /// written, as if the process died: either way no response arrives.
    /// `error-before-create` and `error-after-create` make the server's own
    /// code fail just before or just after it writes the order: the process
    /// lives on and answers 500 (`/problems/simulated-error`), the failure
    /// hook the probe's `--fail-header` and `--fail-after-header` use.
    #[param(rename = "Lab-Fault", required = false, inline)]
    lab_fault: FaultName,
    /// How long the server keeps this request's key, in seconds (default a day).
    #[param(
        rename = "Lab-Key-Retention-Secs",
        required = false,
        minimum = 1,
        maximum = 2592000
    )]
    lab_key_retention_secs: u64,
    /// How long a claim whose request never answered blocks retries, in
    /// seconds (default 60).
    #[param(
        rename = "Lab-Lock-Timeout-Secs",
        required = false,
        minimum = 1,
        maximum = 3600
    )]
    lab_lock_timeout_secs: u64,
    /// `finish` (the default) runs the work to its end when the client
    /// hangs up; `on-disconnect` drops it at its next await.
    #[param(rename = "Lab-Cancellation", required = false, inline)]
    lab_cancellation: CancellationName,
    /// What to do with a request that has no `Idempotency-Key`: `refuse`
    /// (the default) answers 400; `create` makes the order as a plain POST
    /// does, so a retry makes another (an API whose key is optional).
    #[param(rename = "Lab-Missing-Key", required = false, inline)]
    lab_missing_key: MissingKeyName,
    /// `charge-and-email` also charges the card at the lab's payment
    /// provider and e-mails a receipt through its mail sink, each design
    /// its own way; `none` (the default) stores the order only.
    #[param(rename = "Lab-Side-Effects", required = false, inline)]
    lab_side_effects: SideEffectsName,
    /// The safe server only: `on` refuses the order's write (409
    /// claim-lost) if the request's claim was taken over while it worked.
    #[param(rename = "Lab-Fencing", required = false, inline)]
    lab_fencing: FencingName,
    /// Run this request under a schedule of its lab, the id `POST
    /// /schedules` returned: it stops at a gate before each database
    /// statement, each call to the payment provider and its answer (an
    /// `at-gate` step on `/steps`) until `POST
    /// /schedules/{id}/copies/{copy}/release` lets it through. An id the
    /// lab has no open schedule for is `404 /problems/unknown-schedule`.
    #[param(
        rename = "Lab-Schedule",
        required = false,
        pattern = "^sch_[0-9a-f]{32}$",
        example = "sch_0f3c2a1b9d8e4f5a6b7c8d9e0f1a2b3c"
    )]
    lab_schedule: String,
}

/// The values of `Lab-Missing-Key`.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "kebab-case")]
#[allow(dead_code, reason = "describes a header for utoipa; never built")]
pub enum MissingKeyName {
    /// Answer 400: a key is required.
    Refuse,
    /// Make the order: a plain POST.
    Create,
}

/// The values of `Lab-Fault` (parsed by [`crate::Fault::parse`]).
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "kebab-case")]
#[allow(dead_code, reason = "describes a header for utoipa; never built")]
pub enum FaultName {
    /// Answer nothing after the work is done.
    DropResponse,
    /// Stop after the order is written.
    CrashAfterCreate,
    /// With side effects: stop right after the charge (and an e-mail sent
    /// from the request).
    CrashAfterCharge,
    /// With side effects: the provider charges, then times out; the
    /// server answers 502.
    ProviderTimeout,
    /// Fail (500) just before the order is written.
    ErrorBeforeCreate,
    /// Fail (500) just after the order is written.
    ErrorAfterCreate,
}

/// The values of `Lab-Side-Effects`.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "kebab-case")]
#[allow(dead_code, reason = "describes a header for utoipa; never built")]
pub enum SideEffectsName {
    /// Store the order only.
    None,
    /// Also charge the card and e-mail a receipt.
    ChargeAndEmail,
}

/// The values of `Lab-Fencing`.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "kebab-case")]
#[allow(dead_code, reason = "describes a header for utoipa; never built")]
pub enum FencingName {
    /// Write without checking the claim.
    Off,
    /// Refuse a write whose claim was taken over.
    On,
}

/// The values of `Lab-Cancellation`.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "kebab-case")]
#[allow(dead_code, reason = "describes a header for utoipa; never built")]
pub enum CancellationName {
    /// Run the work to its end.
    Finish,
    /// Drop the work when the client hangs up.
    OnDisconnect,
}
