//! RFC 9457 problem details, the body of every error response.

/// The media type of a problem details body.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// An `application/problem+json` body.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Problem {
    /// A URI reference naming the kind of problem, e.g. `/problems/missing-idempotency-key`.
    #[serde(rename = "type")]
    pub kind: String,
    /// A short summary that is the same for every occurrence of this kind.
    pub title: String,
    /// The HTTP status code, repeated for clients that only keep the body.
    #[cfg_attr(feature = "openapi", schema(minimum = 400, maximum = 599))]
    pub status: u16,
    /// What went wrong with this request, in plain words.
    pub detail: String,
}
