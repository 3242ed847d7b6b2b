//! The workshop's SQL: saved runs and lesson progress. Each statement is
//! written once with `$1` placeholders and runs on SQLite and PostgreSQL.

use chrono::{DateTime, Utc};
use lab_platform::{Db, with_pool, with_reader};
use lab_wire::workshop::{LabActivity, RunSummary};
use lab_wire::{LabId, Timestamp};

const INSERT_RUN: &str = "INSERT INTO lab_runs \
     (id, lab_id, saved_at, expires_at, lesson_step, panes_with_duplicates, body) \
     VALUES ($1, $2, $3, $4, $5, $6, $7)";
/// Keeps a lab's (`$1`) newest `$2` runs and deletes the rest.
const TRIM_RUNS: &str = "DELETE FROM lab_runs WHERE lab_id = $1 AND id NOT IN \
     (SELECT id FROM lab_runs WHERE lab_id = $1 ORDER BY saved_at DESC, id DESC LIMIT $2)";
const FIND_RUN: &str = "SELECT lab_id, saved_at, expires_at, body FROM lab_runs \
     WHERE id = $1 AND expires_at > $2";
const LIST_RUNS: &str = "SELECT id, saved_at, lesson_step, panes_with_duplicates FROM lab_runs \
     WHERE lab_id = $1 AND expires_at > $2 ORDER BY saved_at DESC, id DESC";
/// Each lab's live runs: how many, how many with duplicates, the last, and its id.
const RUNS_BY_LAB: &str = "SELECT r.lab_id, COUNT(*), \
     SUM(CASE WHEN r.panes_with_duplicates > 0 THEN 1 ELSE 0 END), MAX(r.saved_at), \
     (SELECT l.id FROM lab_runs l WHERE l.lab_id = r.lab_id AND l.expires_at > $1 \
      ORDER BY l.saved_at DESC, l.id DESC LIMIT 1) \
     FROM lab_runs r WHERE r.expires_at > $1 GROUP BY r.lab_id";
const SAVE_PROGRESS: &str = "INSERT INTO lab_lessons \
     (lab_id, step, furthest_step, predictions_right, predictions_made, predictions, challenges, updated_at) \
     VALUES ($1, $2, $2, $3, $4, $5, $7, $6) \
     ON CONFLICT (lab_id) DO UPDATE SET step = excluded.step, \
     furthest_step = CASE WHEN excluded.step > lab_lessons.furthest_step \
                          THEN excluded.step ELSE lab_lessons.furthest_step END, \
     predictions_right = excluded.predictions_right, predictions_made = excluded.predictions_made, \
     predictions = excluded.predictions, challenges = excluded.challenges, \
     updated_at = excluded.updated_at";
const LESSONS_SINCE: &str = "SELECT lab_id, step, furthest_step, predictions_right, \
     predictions_made, updated_at, challenges FROM lab_lessons WHERE updated_at > $1";
const DELETE_EXPIRED_RUNS: &str = "DELETE FROM lab_runs WHERE expires_at <= $1";
const DELETE_IDLE_LESSONS: &str = "DELETE FROM lab_lessons WHERE updated_at <= $1";

/// A run to store.
pub struct NewRun<'a> {
    pub id: &'a str,
    pub lab: &'a LabId,
    pub saved_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub lesson_step: Option<u8>,
    pub panes_with_duplicates: u32,
    pub body: &'a str,
}

/// Stores `run`, then trims its lab to its newest `keep` runs.
pub async fn save_run(db: &Db, run: NewRun<'_>, keep: u32) -> sqlx::Result<()> {
    with_pool!(db, |pool| {
        let mut tx = pool.begin().await?;
        sqlx::query(INSERT_RUN)
            .bind(run.id)
            .bind(run.lab.as_str())
            .bind(run.saved_at)
            .bind(run.expires_at)
            .bind(run.lesson_step.map(i32::from))
            .bind(i32::try_from(run.panes_with_duplicates).unwrap_or(i32::MAX))
            .bind(run.body)
            .execute(&mut *tx)
            .await?;
        sqlx::query(TRIM_RUNS)
            .bind(run.lab.as_str())
            .bind(i64::from(keep))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
    });
    Ok(())
}

/// A stored run: whose, when, until when, and what the page sent.
pub struct StoredRun {
    pub lab: String,
    pub saved_at: Timestamp,
    pub expires_at: Timestamp,
    pub body: String,
}

/// The run `id`, unless it is unknown or has expired by `now`.
pub async fn find_run(db: &Db, id: &str, now: DateTime<Utc>) -> sqlx::Result<Option<StoredRun>> {
    let row: Option<(String, DateTime<Utc>, DateTime<Utc>, String)> = with_reader!(db, |pool| {
        sqlx::query_as(FIND_RUN)
            .bind(id)
            .bind(now)
            .fetch_optional(pool)
            .await?
    });
    Ok(row.map(|(lab, saved_at, expires_at, body)| StoredRun {
        lab,
        saved_at: saved_at.into(),
        expires_at: expires_at.into(),
        body,
    }))
}

/// A lab's live runs, newest first.
pub async fn list_runs(db: &Db, lab: &LabId, now: DateTime<Utc>) -> sqlx::Result<Vec<RunSummary>> {
    let rows: Vec<(String, DateTime<Utc>, Option<i32>, i32)> = with_reader!(db, |pool| {
        sqlx::query_as(LIST_RUNS)
            .bind(lab.as_str())
            .bind(now)
            .fetch_all(pool)
            .await?
    });
    Ok(rows
        .into_iter()
        .map(|(id, saved_at, step, duplicates)| RunSummary {
            id,
            saved_at: saved_at.into(),
            lesson_step: step.and_then(|s| u8::try_from(s).ok()),
            panes_with_duplicates: u32::try_from(duplicates).unwrap_or(0),
        })
        .collect())
}

/// A lab's progress through the lesson, as the page last sent it.
pub struct Progress<'a> {
    pub lab: &'a LabId,
    pub step: u8,
    pub predictions_right: u32,
    pub predictions_made: u32,
    pub predictions: &'a str,
    /// The challenges met, as JSON.
    pub challenges: &'a str,
    pub at: DateTime<Utc>,
}

/// Stores a lab's progress, keeping the furthest step it ever reached.
pub async fn save_progress(db: &Db, progress: Progress<'_>) -> sqlx::Result<()> {
    with_pool!(db, |pool| {
        sqlx::query(SAVE_PROGRESS)
            .bind(progress.lab.as_str())
            .bind(i32::from(progress.step))
            .bind(i32::try_from(progress.predictions_right).unwrap_or(i32::MAX))
            .bind(i32::try_from(progress.predictions_made).unwrap_or(i32::MAX))
            .bind(progress.predictions)
            .bind(progress.at)
            .bind(progress.challenges)
            .execute(pool)
            .await?;
    });
    Ok(())
}

type RunsRow = (String, i64, i64, DateTime<Utc>, Option<String>);
type LessonRow = (String, i32, i32, i32, i32, DateTime<Utc>, String);

/// Every lab with a live run or lesson progress since `since`, the most
/// recently active first, at most `limit`.
pub async fn room(
    db: &Db,
    now: DateTime<Utc>,
    since: DateTime<Utc>,
    limit: usize,
) -> sqlx::Result<Vec<LabActivity>> {
    let runs: Vec<RunsRow> = with_reader!(db, |pool| {
        sqlx::query_as(RUNS_BY_LAB)
            .bind(now)
            .fetch_all(pool)
            .await?
    });
    let lessons: Vec<LessonRow> = with_reader!(db, |pool| {
        sqlx::query_as(LESSONS_SINCE)
            .bind(since)
            .fetch_all(pool)
            .await?
    });
    let count = |n: i64| u32::try_from(n).unwrap_or(u32::MAX);
    let mut labs: Vec<LabActivity> = runs
        .into_iter()
        .map(|(lab, runs, duplicates, last, latest)| LabActivity {
            lab,
            last_activity: last.into(),
            runs: count(runs),
            runs_with_duplicates: count(duplicates),
            lesson_step: None,
            furthest_step: None,
            predictions_right: 0,
            predictions_made: 0,
            latest_run: latest,
            challenges: Vec::new(),
        })
        .collect();
    for (lab, step, furthest, right, made, at, challenges) in lessons {
        let entry = match labs.iter().position(|known| known.lab == lab) {
            Some(index) => &mut labs[index],
            None => {
                labs.push(LabActivity {
                    lab,
                    last_activity: at.into(),
                    runs: 0,
                    runs_with_duplicates: 0,
                    lesson_step: None,
                    furthest_step: None,
                    predictions_right: 0,
                    predictions_made: 0,
                    latest_run: None,
                    challenges: Vec::new(),
                });
                labs.last_mut().expect("just pushed")
            }
        };
        entry.lesson_step = u8::try_from(step).ok();
        entry.furthest_step = u8::try_from(furthest).ok();
        entry.predictions_right = u32::try_from(right).unwrap_or(0);
        entry.predictions_made = u32::try_from(made).unwrap_or(0);
        // Written by the server after checking each name; unreadable, it says nothing.
        entry.challenges = serde_json::from_str(&challenges).unwrap_or_default();
        entry.last_activity = entry.last_activity.max(at.into());
    }
    labs.sort_by(|a, b| {
        b.last_activity
            .cmp(&a.last_activity)
            .then(a.lab.cmp(&b.lab))
    });
    labs.truncate(limit);
    Ok(labs)
}

/// Deletes runs expired by `now` and lesson progress untouched since `idle_since`.
pub async fn delete_expired(
    db: &Db,
    now: DateTime<Utc>,
    idle_since: DateTime<Utc>,
) -> sqlx::Result<u64> {
    let deleted = with_pool!(db, |pool| {
        sqlx::query(DELETE_EXPIRED_RUNS)
            .bind(now)
            .execute(pool)
            .await?
            .rows_affected()
            + sqlx::query(DELETE_IDLE_LESSONS)
                .bind(idle_since)
                .execute(pool)
                .await?
                .rows_affected()
    });
    Ok(deleted)
}
