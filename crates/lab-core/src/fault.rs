//! Demo faults a request can ask for with the `Lab-Fault` header, so a
//! learner can make the network misbehave on purpose.

use axum::response::Response;

use lab_platform::LabError;
use lab_platform::serve::HangUp;

/// A failure the server injects into one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Do all the work and commit, then hang up without answering: the
    /// client cannot tell whether its order was placed.
    DropResponse,
    /// Stop right after the order is written, before its answer is saved,
    /// as if the process died there: nothing else runs, nothing is cleaned
    /// up, and the connection closes without an answer.
    CrashAfterCreate,
    /// With side effects: die right after the payment provider charged
    /// (and, where the design sends it from the request, the e-mail went
    /// out), before anything else is written.
    CrashAfterCharge,
    /// With side effects: the provider charges, then times out instead of
    /// answering, so the shop cannot know whether the card was charged.
    ProviderTimeout,
}

impl Fault {
    /// Parses a `Lab-Fault` header value.
    pub fn parse(raw: &str) -> Result<Self, LabError> {
        match raw.trim() {
            "drop-response" => Ok(Self::DropResponse),
            "crash-after-create" => Ok(Self::CrashAfterCreate),
            "crash-after-charge" => Ok(Self::CrashAfterCharge),
            "provider-timeout" => Ok(Self::ProviderTimeout),
            other => Err(LabError::UnknownFault(other.to_owned())),
        }
    }

    /// Applies the fault to a finished response.
    pub fn apply(self, response: Response) -> Response {
        match self {
            Self::DropResponse => HangUp::mark(response),
            // These happen inside the flow (see `LabError::SimulatedCrash` and
            // `LabError::ProviderFailed`); a request that never got there
            // answers normally.
            Self::CrashAfterCreate | Self::CrashAfterCharge | Self::ProviderTimeout => response,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_known_faults_parse_and_others_do_not() {
        assert_eq!(Fault::parse("drop-response").unwrap(), Fault::DropResponse);
        assert_eq!(
            Fault::parse("crash-after-create").unwrap(),
            Fault::CrashAfterCreate
        );
        assert_eq!(
            Fault::parse("crash-after-charge").unwrap(),
            Fault::CrashAfterCharge
        );
        assert_eq!(
            Fault::parse("provider-timeout").unwrap(),
            Fault::ProviderTimeout
        );
        assert!(
            matches!(Fault::parse("explode"), Err(LabError::UnknownFault(name)) if name == "explode")
        );
    }

    #[test]
    fn a_dropped_response_carries_the_marker() {
        let response = Fault::DropResponse.apply(Response::new(axum::body::Body::empty()));
        assert!(response.extensions().get::<HangUp>().is_some());
    }
}
