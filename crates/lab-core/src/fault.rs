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
    /// The server's own code fails (an exception, in other languages) just
    /// before it writes the order: the process lives on, answers 500 and
    /// may clean up. The failure hook the probe's `--fail-header` expects.
    ErrorBeforeCreate,
    /// The same, just after the order is written and before its answer is
    /// saved: the work is done, the client hears 500 (`--fail-after-header`).
    ErrorAfterCreate,
}

/// Where in the order's work a fault can strike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkPoint {
    /// Just before the order is written.
    BeforeCreate,
    /// Just after the order is written, before anything else.
    AfterCreate,
}

impl Fault {
    /// Parses a `Lab-Fault` header value.
    pub fn parse(raw: &str) -> Result<Self, LabError> {
        match raw.trim() {
            "drop-response" => Ok(Self::DropResponse),
            "crash-after-create" => Ok(Self::CrashAfterCreate),
            "crash-after-charge" => Ok(Self::CrashAfterCharge),
            "provider-timeout" => Ok(Self::ProviderTimeout),
            "error-before-create" => Ok(Self::ErrorBeforeCreate),
            "error-after-create" => Ok(Self::ErrorAfterCreate),
            other => Err(LabError::UnknownFault(other.to_owned())),
        }
    }

    /// The failure this fault makes at `point` of the work, if it strikes
    /// there: a crash (nothing cleaned up, no answer) or an error the
    /// server survives (answered 500).
    pub fn strikes_at(self, point: WorkPoint) -> Option<LabError> {
        match (self, point) {
            (Self::CrashAfterCreate, WorkPoint::AfterCreate) => Some(LabError::SimulatedCrash),
            (Self::ErrorBeforeCreate, WorkPoint::BeforeCreate)
            | (Self::ErrorAfterCreate, WorkPoint::AfterCreate) => {
                Some(LabError::SimulatedError(self.name()))
            }
            _ => None,
        }
    }

    /// The fault's `Lab-Fault` value.
    pub fn name(self) -> &'static str {
        match self {
            Self::DropResponse => "drop-response",
            Self::CrashAfterCreate => "crash-after-create",
            Self::CrashAfterCharge => "crash-after-charge",
            Self::ProviderTimeout => "provider-timeout",
            Self::ErrorBeforeCreate => "error-before-create",
            Self::ErrorAfterCreate => "error-after-create",
        }
    }

    /// Applies the fault to a finished response.
    pub fn apply(self, response: Response) -> Response {
        match self {
            Self::DropResponse => HangUp::mark(response),
            // These happen inside the flow (see `LabError::SimulatedCrash` and
            // `LabError::ProviderFailed`); a request that never got there
            // answers normally.
            Self::CrashAfterCreate
            | Self::CrashAfterCharge
            | Self::ProviderTimeout
            | Self::ErrorBeforeCreate
            | Self::ErrorAfterCreate => response,
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
        for fault in [Fault::ErrorBeforeCreate, Fault::ErrorAfterCreate] {
            assert_eq!(Fault::parse(fault.name()).unwrap(), fault);
        }
        assert!(
            matches!(Fault::parse("explode"), Err(LabError::UnknownFault(name)) if name == "explode")
        );
    }

    #[test]
    fn each_fault_strikes_where_it_says_and_nowhere_else() {
        use WorkPoint::{AfterCreate, BeforeCreate};
        assert!(Fault::ErrorBeforeCreate.strikes_at(AfterCreate).is_none());
        assert!(matches!(
            Fault::ErrorBeforeCreate.strikes_at(BeforeCreate),
            Some(LabError::SimulatedError("error-before-create"))
        ));
        assert!(Fault::ErrorAfterCreate.strikes_at(BeforeCreate).is_none());
        assert!(matches!(
            Fault::ErrorAfterCreate.strikes_at(AfterCreate),
            Some(LabError::SimulatedError("error-after-create"))
        ));
        assert!(matches!(
            Fault::CrashAfterCreate.strikes_at(AfterCreate),
            Some(LabError::SimulatedCrash)
        ));
        for fault in [
            Fault::DropResponse,
            Fault::CrashAfterCharge,
            Fault::ProviderTimeout,
        ] {
            assert!(
                fault.strikes_at(BeforeCreate).is_none() && fault.strikes_at(AfterCreate).is_none()
            );
        }
    }

    #[test]
    fn a_dropped_response_carries_the_marker() {
        let response = Fault::DropResponse.apply(Response::new(axum::body::Body::empty()));
        assert!(response.extensions().get::<HangUp>().is_some());
    }
}
