//! Reading the lab's request headers: each may be sent at most once, and a
//! number must be a whole number in its range, or the request is refused
//! with a problem that names the header.

use axum::http::{HeaderMap, HeaderValue};

use crate::LabError;

/// The header's only value, or an error if it was sent more than once.
pub fn single_header<'a>(
    headers: &'a HeaderMap,
    name: &str,
    display_name: &'static str,
) -> Result<Option<&'a HeaderValue>, LabError> {
    let mut values = headers.get_all(name).iter();
    let first = values.next();
    if values.next().is_some() {
        return Err(LabError::RepeatedHeader(display_name));
    }
    Ok(first)
}

/// A whole number from a header sent at most once, if sent; `invalid`
/// builds the error for text that is not a number in `range`.
pub fn number_header(
    headers: &HeaderMap,
    name: &str,
    display_name: &'static str,
    range: std::ops::RangeInclusive<u64>,
    invalid: fn(String) -> LabError,
) -> Result<Option<u64>, LabError> {
    let Some(value) = single_header(headers, name, display_name)? else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(value.as_bytes());
    match text.trim().parse::<u64>() {
        Ok(number) if range.contains(&number) => Ok(Some(number)),
        _ => Err(invalid(text.into_owned())),
    }
}

/// A header map of `pairs` (names in lower case): for tests here and in
/// the crates that read headers with these functions.
pub fn header_map(pairs: &[(&'static str, &str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        map.append(*name, HeaderValue::from_str(value).unwrap());
    }
    map
}
