//! Reading a request's JSON body within bounds: a body that is not JSON is
//! a 415, one too large a 413 (the client still hears why), one that never
//! finishes arriving a 400, so no service of the lab waits on a slow sender.

use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::HeaderMap;
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use http_body_util::BodyExt;
use serde::Deserialize;
use serde_json::Value;

use crate::LabError;
use crate::headers::single_header;

/// How much of an oversized body is read and thrown away before hanging up.
const MAX_DISCARDED_BYTES: usize = 8 * 1024 * 1024;
/// How long a client may take to send its body.
const BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Refuses a body not sent as JSON (`application/json` or `…+json`): 415.
pub fn require_json_content_type(headers: &HeaderMap) -> Result<(), LabError> {
    let media_type = single_header(headers, CONTENT_TYPE.as_str(), "Content-Type")?
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .map(|media| media.trim().to_ascii_lowercase());
    match media_type.as_deref() {
        Some("application/json") => Ok(()),
        Some(other) if other.starts_with("application/") && other.ends_with("+json") => Ok(()),
        _ => Err(LabError::UnsupportedMediaType),
    }
}

/// Reads a body of at most `max_bytes`; past it, 413 (after reading and
/// throwing away a bounded amount, so the client hears why).
pub async fn read_limited_body(
    headers: &HeaderMap,
    mut body: Body,
    max_bytes: usize,
) -> Result<bytes::Bytes, LabError> {
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    let mut too_large = declared.is_some_and(|length| length > max_bytes as u64);
    let mut kept = bytes::BytesMut::new();
    let mut seen = 0usize;
    // An oversized body is still read (and thrown away), up to a bound: a
    // client that is still sending when the server hangs up gets a broken
    // pipe instead of our 413, and would never learn what was wrong.
    let read = async {
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|error| LabError::UnreadableBody(error.to_string()))?;
            let Some(data) = frame.data_ref() else {
                continue;
            };
            seen += data.len();
            if seen > MAX_DISCARDED_BYTES {
                break;
            }
            too_large |= seen > max_bytes;
            if !too_large {
                kept.extend_from_slice(data);
            }
        }
        Ok(())
    };
    match tokio::time::timeout(BODY_READ_TIMEOUT, read).await {
        Ok(Ok(())) if too_large || seen > max_bytes => Err(LabError::BodyTooLarge(max_bytes)),
        Ok(Ok(())) => Ok(kept.freeze()),
        Ok(Err(error)) => Err(error),
        Err(_elapsed) if too_large => Err(LabError::BodyTooLarge(max_bytes)),
        Err(_elapsed) => Err(LabError::UnreadableBody(format!(
            "the body did not arrive within {} seconds",
            BODY_READ_TIMEOUT.as_secs()
        ))),
    }
}

/// Reads a JSON body of at most `max` bytes into `T`: a syntax error is
/// malformed JSON (400); well-formed JSON of the wrong shape is an invalid
/// record (422) whose detail names the field, as `panes[0].orders[0].id`.
/// A whole number written with a fraction (`2.0`) is the number (JSON
/// Schema counts it as an integer too).
pub async fn read_json<T: for<'de> Deserialize<'de>>(
    request: Request,
    max: usize,
) -> Result<T, LabError> {
    let (parts, body): (_, Body) = request.into_parts();
    require_json_content_type(&parts.headers)?;
    let bytes = read_limited_body(&parts.headers, body, max).await?;
    let mut value: Value =
        serde_json::from_slice(&bytes).map_err(|error| match error.classify() {
            serde_json::error::Category::Data => LabError::InvalidRecord(error.to_string()),
            _ => LabError::MalformedJson(error.to_string()),
        })?;
    whole_numbers_as_integers(&mut value);
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let why = error.into_inner();
        LabError::InvalidRecord(if path == "." {
            why.to_string()
        } else {
            format!("{path}: {why}")
        })
    })
}

/// Rewrites every number like `2.0` as the integer `2`, so that it reads
/// into an integer field; fractions and numbers too large stay as they are.
fn whole_numbers_as_integers(value: &mut Value) {
    match value {
        Value::Number(number) => {
            if let Some(float) = number.as_f64().filter(|_| number.is_f64())
                && float.fract() == 0.0
                && float.abs() <= lab_wire::run::MAX_EXACT_NUMBER as f64
            {
                *number = serde_json::Number::from(float as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers_as_integers),
        Value::Object(fields) => fields.values_mut().for_each(whole_numbers_as_integers),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headers::header_map as headers;

    #[test]
    fn json_with_a_charset_or_a_json_suffix_is_accepted_and_text_is_not() {
        assert!(
            require_json_content_type(&headers(&[(
                "content-type",
                "application/json; charset=utf-8"
            )]))
            .is_ok()
        );
        assert!(
            require_json_content_type(&headers(&[("content-type", "application/vnd.lab+json")]))
                .is_ok()
        );
        assert!(matches!(
            require_json_content_type(&headers(&[("content-type", "text/plain")])),
            Err(LabError::UnsupportedMediaType)
        ));
        assert!(matches!(
            require_json_content_type(&headers(&[])),
            Err(LabError::UnsupportedMediaType)
        ));
    }

    #[test]
    fn a_whole_number_written_as_a_float_reads_as_that_number_even_near_2_to_the_53() {
        for (json, whole) in [
            ("2.0", 2),
            ("2251799813685247.0", 2_251_799_813_685_247),
            ("9007199254740991.0", 9_007_199_254_740_991),
        ] {
            let mut value: Value = serde_json::from_str(json).unwrap();
            whole_numbers_as_integers(&mut value);
            assert_eq!(value.as_i64(), Some(whole), "{json}");
        }
        let mut fraction: Value = serde_json::from_str("[2.5, 1e300]").unwrap();
        whole_numbers_as_integers(&mut fraction);
        assert!(fraction[0].is_f64() && fraction[1].is_f64(), "{fraction}");
    }
}
