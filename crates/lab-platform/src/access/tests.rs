use super::*;
use crate::headers::header_map as headers;

const SECRET: &str = "a-secret-of-this-lab";

fn credentials(pairs: &[(&'static str, &str)]) -> LabCredentials {
    LabCredentials::from_headers(&headers(pairs)).expect("readable credentials")
}

fn teacher() -> TeacherToken {
    TeacherToken::new("the-teachers-token").unwrap()
}

fn own_lab() -> LabId {
    LabSecret::try_from(SECRET).unwrap().lab_id()
}

#[test]
fn a_secret_opens_its_own_lab_for_any_use_with_or_without_its_id() {
    let alone = credentials(&[("lab-secret", SECRET)]);
    assert_eq!(
        alone.open(LabUse::Change, &TeacherToken::none()).unwrap(),
        own_lab()
    );
    let named = credentials(&[("lab-secret", SECRET), ("lab-id", own_lab().as_str())]);
    assert_eq!(
        named.open(LabUse::Read, &TeacherToken::none()).unwrap(),
        own_lab()
    );
}

#[test]
fn a_lab_id_without_its_secret_opens_nothing() {
    let seen = credentials(&[("lab-id", own_lab().as_str())]);
    for use_ in [LabUse::Read, LabUse::Change] {
        assert!(matches!(
            seen.open(use_, &teacher()),
            Err(LabError::LabSecretRequired(lab)) if lab == own_lab()
        ));
    }
}

#[test]
fn a_secret_sent_with_another_labs_id_is_refused() {
    let mixed = credentials(&[("lab-secret", SECRET), ("lab-id", "lab-0000")]);
    assert!(matches!(
        mixed.open(LabUse::Read, &TeacherToken::none()),
        Err(LabError::LabSecretMismatch(_))
    ));
}

#[test]
fn the_teachers_token_reads_any_lab_but_changes_none() {
    let reading = credentials(&[
        ("lab-id", own_lab().as_str()),
        ("authorization", "Bearer the-teachers-token"),
    ]);
    assert_eq!(reading.open(LabUse::Read, &teacher()).unwrap(), own_lab());
    assert!(matches!(
        reading.open(LabUse::Change, &teacher()),
        Err(LabError::TeacherReadsOnly)
    ));
    assert!(matches!(
        reading.open(LabUse::Read, &TeacherToken::none()),
        Err(LabError::TeacherTokenWrong)
    ));
    let guessing = credentials(&[
        ("lab-id", own_lab().as_str()),
        ("authorization", "bearer the-teachers-tokeN"),
    ]);
    assert!(matches!(
        guessing.open(LabUse::Read, &teacher()),
        Err(LabError::TeacherTokenWrong)
    ));
}

#[test]
fn no_lab_named_is_the_public_default_lab() {
    let nothing = credentials(&[]);
    assert_eq!(
        nothing.open(LabUse::Change, &TeacherToken::none()).unwrap(),
        LabId::default()
    );
    let by_name = credentials(&[("lab-id", "default")]);
    assert_eq!(
        by_name.open(LabUse::Read, &TeacherToken::none()).unwrap(),
        LabId::default()
    );
}

#[test]
fn malformed_ids_secrets_and_authorizations_are_the_clients_400() {
    let bad_id = credentials(&[("lab-id", "a/b")]);
    assert!(matches!(
        bad_id.open(LabUse::Read, &teacher()),
        Err(LabError::InvalidLabId(_))
    ));
    let bad_secret = credentials(&[("lab-secret", "short")]);
    let error = bad_secret.open(LabUse::Read, &teacher()).unwrap_err();
    assert!(matches!(error, LabError::InvalidLabSecret(_)));
    assert_eq!(error.status(), 400);
    let basic = LabCredentials::from_headers(&headers(&[("authorization", "Basic dXNlcg==")]));
    assert!(matches!(basic, Err(LabError::InvalidAuthorization)));
}

#[test]
fn teacher_tokens_are_checked_like_secrets_and_generated_ones_are_valid() {
    assert!(TeacherToken::new("short").is_none());
    assert!(TeacherToken::new("has spaces in the token").is_none());
    let (token, text) = TeacherToken::generate();
    assert!(token.admits(&text));
    assert!(
        !format!("{token:?}").contains(&text),
        "the token is not printed"
    );
    assert!(!TeacherToken::none().admits(&text));
}

#[test]
fn headers_fill_in_what_a_query_left_out() {
    let query = LabCredentials {
        secret: Some(SECRET.to_owned()),
        ..LabCredentials::default()
    };
    let merged = query.or(credentials(&[
        ("lab-id", "other"),
        ("lab-secret", "ignored-here-too"),
    ]));
    assert_eq!(merged.secret.as_deref(), Some(SECRET));
    assert_eq!(merged.lab.as_deref(), Some("other"));
}
