//! Who may use which lab. A lab opens with its secret (`Lab-Secret`, whose
//! hash is the lab's id: see [`LabSecret`]); the room's teacher may read
//! any lab with the teacher's token (`Authorization: Bearer …`) but change
//! none; and the `default` lab, used by requests that name no lab, is a
//! public sandbox for a first curl. Nothing is stored: a secret is checked
//! by hashing it, so a guessed or overheard lab id opens nothing.

use std::sync::Arc;

use axum::extract::{FromRef, FromRequestParts};
use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use lab_wire::headers::{LAB_ID, LAB_SECRET};
use lab_wire::{LabId, LabSecret};
use sha2::{Digest, Sha256};

use crate::LabError;
use crate::headers::single_header;

/// The teacher's token, as a hash (the token itself is not kept), or none
/// when the server has no teacher.
#[derive(Clone, Default)]
pub struct TeacherToken(Option<Arc<[u8; 32]>>);

impl TeacherToken {
    /// The shortest token accepted, like a lab secret.
    pub const MIN_LEN: usize = LabSecret::MIN_LEN;

    /// A server with no teacher: no token reads another's lab.
    pub fn none() -> Self {
        Self(None)
    }

    /// The token `token`; `None` if it is shorter than [`Self::MIN_LEN`]
    /// or holds anything but letters, digits, `-` and `_`.
    pub fn new(token: &str) -> Option<Self> {
        let allowed = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        (token.len() >= Self::MIN_LEN && token.len() <= 128 && token.chars().all(allowed))
            .then(|| Self(Some(Arc::new(digest(token)))))
    }

    /// A new random token (122 random bits), and its text to show the teacher.
    pub fn generate() -> (Self, String) {
        let token = format!("teach-{}", uuid::Uuid::new_v4().simple());
        (
            Self::new(&token).expect("a generated token is valid"),
            token,
        )
    }

    /// Whether `offered` is the teacher's token. Hashes are compared, so
    /// the time taken says nothing about how much of the token was right.
    pub fn admits(&self, offered: &str) -> bool {
        self.0
            .as_deref()
            .is_some_and(|expected| *expected == digest(offered))
    }
}

impl std::fmt::Debug for TeacherToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = if self.0.is_some() { "set" } else { "none" };
        write!(f, "TeacherToken({set})")
    }
}

fn digest(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// What a request does to the lab it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabUse {
    /// Places orders or clears the lab: only with the lab's secret.
    Change,
    /// Lists orders or watches steps: with the secret or the teacher's token.
    Read,
}

/// The headers that name and open a lab, for the OpenAPI document (the
/// teacher's `Authorization: Bearer` is its security scheme). Read by
/// [`LabCredentials::from_headers`], checked by [`LabCredentials::open`].
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code, reason = "describes headers for utoipa; never built")]
pub struct CredentialHeaders {
    /// Which lab: letters, digits, `-` and `_`. Left out, the public
    /// `default` lab (or the lab the secret opens). Any other lab needs its
    /// secret, or the teacher's token to read it.
    #[param(
        rename = "Lab-Id",
        required = false,
        pattern = "^[A-Za-z0-9_-]{1,64}$",
        example = "default"
    )]
    lab_id: String,
    /// The secret that opens a private lab (the page keeps it in the lab's
    /// link); the lab's id is derived from it.
    #[param(
        rename = "Lab-Secret",
        required = false,
        pattern = "^[A-Za-z0-9_-]{16,128}$"
    )]
    lab_secret: String,
}

/// What a request offers to open a lab, from its headers (and, for a
/// browser's `EventSource`, which cannot send headers, its query).
#[derive(Debug, Default, Clone)]
pub struct LabCredentials {
    /// `Lab-Id`: the lab named.
    pub lab: Option<String>,
    /// `Lab-Secret`: the lab's secret.
    pub secret: Option<String>,
    /// `Authorization: Bearer …`: the teacher's token.
    pub teacher: Option<String>,
}

impl LabCredentials {
    /// The credentials in `headers`.
    pub fn from_headers(headers: &HeaderMap) -> Result<Self, LabError> {
        let text = |name, shown| -> Result<Option<String>, LabError> {
            Ok(single_header(headers, name, shown)?
                .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned()))
        };
        let teacher = match text(AUTHORIZATION.as_str(), "Authorization")? {
            None => None,
            Some(value) => Some(bearer_token(&value).ok_or(LabError::InvalidAuthorization)?),
        };
        Ok(Self {
            lab: text(LAB_ID, "Lab-Id")?,
            secret: text(LAB_SECRET, "Lab-Secret")?,
            teacher,
        })
    }

    /// These credentials, each missing one taken from `other`.
    pub fn or(self, other: Self) -> Self {
        Self {
            lab: self.lab.or(other.lab),
            secret: self.secret.or(other.secret),
            teacher: self.teacher.or(other.teacher),
        }
    }

    /// The lab these credentials open for `use_`, or why they open none.
    pub fn open(&self, use_: LabUse, teacher: &TeacherToken) -> Result<LabId, LabError> {
        let named = self.lab.as_deref().map(LabId::try_from).transpose()?;
        if let Some(secret) = &self.secret {
            let opened = LabSecret::try_from(secret.as_str())?.lab_id();
            return match named {
                Some(named) if named != opened => Err(LabError::LabSecretMismatch(named)),
                _ => Ok(opened),
            };
        }
        let lab = named.unwrap_or_default();
        if lab.as_str() == LabId::DEFAULT {
            return Ok(lab);
        }
        match (&self.teacher, use_) {
            (None, _) => Err(LabError::LabSecretRequired(lab)),
            (Some(_), LabUse::Change) => Err(LabError::TeacherReadsOnly),
            (Some(token), LabUse::Read) if teacher.admits(token) => Ok(lab),
            (Some(_), LabUse::Read) => Err(LabError::TeacherTokenWrong),
        }
    }
}

/// The token of an `Authorization: Bearer TOKEN` value (the scheme in any case).
fn bearer_token(value: &str) -> Option<String> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then(|| token.to_owned())
}

/// The lab a request changes (`POST` or `DELETE /orders`), opened by its secret.
#[derive(Debug, Clone)]
pub struct LabToChange(pub LabId);

impl<S: Send + Sync> FromRequestParts<S> for LabToChange {
    type Rejection = LabError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let credentials = LabCredentials::from_headers(&parts.headers)?;
        Ok(Self(
            credentials.open(LabUse::Change, &TeacherToken::none())?,
        ))
    }
}

/// The lab a request reads (`GET /orders`), opened by its secret or the
/// teacher's token.
#[derive(Debug, Clone)]
pub struct LabToRead(pub LabId);

impl<S> FromRequestParts<S> for LabToRead
where
    S: Send + Sync,
    TeacherToken: FromRef<S>,
{
    type Rejection = LabError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let credentials = LabCredentials::from_headers(&parts.headers)?;
        Ok(Self(
            credentials.open(LabUse::Read, &TeacherToken::from_ref(state))?,
        ))
    }
}

#[cfg(test)]
mod tests;
