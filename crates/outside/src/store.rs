//! The provider's and the mail sink's SQL. Each statement is written once
//! with `$1` placeholders and runs on SQLite and PostgreSQL.

use chrono::{DateTime, SubsecRound, Utc};
use lab_platform::{Db, UniqueInsert, with_pool, with_reader};
use lab_wire::LabId;
use lab_wire::outside::{Charge, NewCharge, SideEffects};

const INSERT_CHARGE: &str = "INSERT INTO outside_charges \
     (id, merchant, lab_id, idempotency_key, amount_cents, description, created_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7)";
const FIND_CHARGE: &str = "SELECT id, amount_cents, description, created_at FROM outside_charges \
     WHERE merchant = $1 AND lab_id = $2 AND idempotency_key = $3";
const INSERT_EMAIL: &str = "INSERT INTO outside_emails \
     (id, sender, lab_id, message_id, subject, created_at) VALUES ($1, $2, $3, $4, $5, $6)";
const CHARGES_BY_MERCHANT: &str = "SELECT merchant, COUNT(*), CAST(COALESCE(SUM(amount_cents), 0) AS BIGINT) \
     FROM outside_charges WHERE lab_id = $1 GROUP BY merchant";
const EMAILS_BY_SENDER: &str =
    "SELECT sender, COUNT(*) FROM outside_emails WHERE lab_id = $1 GROUP BY sender";
const DELETE_CHARGES: &str = "DELETE FROM outside_charges WHERE lab_id = $1";
const DELETE_EMAILS: &str = "DELETE FROM outside_emails WHERE lab_id = $1";
const DELETE_OLD_CHARGES: &str = "DELETE FROM outside_charges WHERE created_at < $1";
const DELETE_OLD_EMAILS: &str = "DELETE FROM outside_emails WHERE created_at < $1";

/// Who asks, for which lab, under which key.
pub struct Caller<'a> {
    pub merchant: &'a str,
    pub lab: &'a LabId,
    pub key: &'a str,
}

/// What a charge request came to.
pub enum Charged {
    /// A new charge.
    New(Charge),
    /// The key was charged for before: that charge, and what it was for.
    Before(Charge, NewCharge),
}

/// Charges `charge` under the caller's key, unless that key was charged
/// for already: the UNIQUE constraint decides between racing requests.
pub async fn charge(db: &Db, caller: &Caller<'_>, charge: &NewCharge) -> sqlx::Result<Charged> {
    let id = format!("ch_{}", &uuid::Uuid::new_v4().simple().to_string()[..24]);
    let now = Utc::now().trunc_subsecs(6);
    let inserted = with_pool!(db, |pool| {
        sqlx::query(INSERT_CHARGE)
            .bind(&id)
            .bind(caller.merchant)
            .bind(caller.lab.as_str())
            .bind(caller.key)
            .bind(charge.amount_cents)
            .bind(&charge.description)
            .bind(now)
            .execute(pool)
            .await
            .map(|_| ())
    });
    if UniqueInsert::of(inserted)? == UniqueInsert::Inserted {
        return Ok(Charged::New(Charge {
            id,
            amount_cents: charge.amount_cents,
            created_at: now.into(),
        }));
    }
    let row: (String, i64, String, DateTime<Utc>) = with_pool!(db, |pool| {
        sqlx::query_as(FIND_CHARGE)
            .bind(caller.merchant)
            .bind(caller.lab.as_str())
            .bind(caller.key)
            .fetch_one(pool)
            .await?
    });
    let (id, amount_cents, description, created_at) = row;
    Ok(Charged::Before(
        Charge {
            id,
            amount_cents,
            created_at: created_at.into(),
        },
        NewCharge {
            amount_cents,
            description,
        },
    ))
}

/// Delivers an e-mail with the caller's key as its message id; `false`
/// if that message was delivered before (and is not delivered again).
pub async fn deliver(db: &Db, caller: &Caller<'_>, subject: &str) -> sqlx::Result<bool> {
    let id = format!("em_{}", uuid::Uuid::new_v4().simple());
    let inserted = with_pool!(db, |pool| {
        sqlx::query(INSERT_EMAIL)
            .bind(&id)
            .bind(caller.merchant)
            .bind(caller.lab.as_str())
            .bind(caller.key)
            .bind(subject)
            .bind(Utc::now().trunc_subsecs(6))
            .execute(pool)
            .await
            .map(|_| ())
    });
    Ok(UniqueInsert::of(inserted)? == UniqueInsert::Inserted)
}

/// A shop's charges for a lab: its name, how many, how many cents.
type MerchantCharges = (String, i64, i64);
/// A shop's e-mails for a lab: its name, how many.
type SenderEmails = (String, i64);

/// What each of `servers` did for `lab` at the provider and the mail sink.
pub async fn side_effects(
    db: &Db,
    lab: &LabId,
    servers: &[&str],
) -> sqlx::Result<Vec<SideEffects>> {
    let (charges, emails): (Vec<MerchantCharges>, Vec<SenderEmails>) = with_reader!(db, |pool| {
        let charges = sqlx::query_as(CHARGES_BY_MERCHANT)
            .bind(lab.as_str())
            .fetch_all(pool)
            .await?;
        let emails = sqlx::query_as(EMAILS_BY_SENDER)
            .bind(lab.as_str())
            .fetch_all(pool)
            .await?;
        (charges, emails)
    });
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    Ok(servers
        .iter()
        .map(|server| {
            let charged = charges.iter().find(|(merchant, ..)| merchant == server);
            let emailed = emails.iter().find(|(sender, _)| sender == server);
            SideEffects {
                server: (*server).to_owned(),
                charges: charged.map_or(0, |(_, n, _)| count(*n)),
                charged_cents: charged.map_or(0, |(.., cents)| *cents),
                emails: emailed.map_or(0, |(_, n)| count(*n)),
                emails_waiting: 0,
            }
        })
        .collect())
}

/// Forgets the lab's charges and e-mails, as if its card and inbox were new.
pub async fn forget_lab(db: &Db, lab: &LabId) -> sqlx::Result<()> {
    with_pool!(db, |pool| {
        let mut tx = pool.begin().await?;
        for statement in [DELETE_CHARGES, DELETE_EMAILS] {
            sqlx::query(statement)
                .bind(lab.as_str())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
    });
    Ok(())
}

/// Deletes charges and e-mails made before `before`; returns how many went.
pub async fn delete_older_than(db: &Db, before: DateTime<Utc>) -> sqlx::Result<u64> {
    let mut deleted = 0;
    for statement in [DELETE_OLD_CHARGES, DELETE_OLD_EMAILS] {
        deleted += with_pool!(db, |pool| {
            sqlx::query(statement)
                .bind(before)
                .execute(pool)
                .await?
                .rows_affected()
        });
    }
    Ok(deleted)
}
