//! The connections PostgreSQL statements run on (`lab_platform::db::Statements`,
//! which replaced sqlx's pool for them to save a ping per statement): a
//! connection is lent again after its statement, even one the database
//! refused, and closed instead when a statement was abandoned half-way, so
//! the next statement never reads the abandoned one's answer.

use std::time::Duration;

use lab_e2e::Backend;
use lab_platform::Db;
use lab_platform::db::Statements;

/// A PostgreSQL storage whose statements share one connection.
async fn one_connection() -> Db {
    let url = Backend::Postgres.own_database_url("connections").await;
    let mut db = Db::connect(&url).await.unwrap();
    if let Db::Postgres(postgres) = &mut db {
        postgres.statements = Statements::new(postgres.pool.clone(), 1, Duration::from_secs(30));
    }
    db
}

/// The server process behind the connection a statement was lent.
async fn backend_pid(db: &Db) -> i32 {
    let Db::Postgres(postgres) = db else {
        unreachable!("a PostgreSQL storage")
    };
    sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&postgres.statements)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_connection_is_lent_again_after_its_statement_even_one_the_database_refused() {
    let db = one_connection().await;
    let Db::Postgres(postgres) = &db else {
        unreachable!()
    };
    let first = backend_pid(&db).await;
    assert_eq!(
        backend_pid(&db).await,
        first,
        "the same connection, kept open"
    );

    let refused = sqlx::query("SELECT 1 / 0")
        .execute(&postgres.statements)
        .await;
    assert!(
        matches!(refused, Err(sqlx::Error::Database(_))),
        "{refused:?}"
    );
    assert_eq!(
        backend_pid(&db).await,
        first,
        "a refusal leaves the connection fit to lend"
    );
}

#[tokio::test]
async fn a_statement_abandoned_half_way_closes_its_connection_and_the_next_gets_its_own_answer() {
    let db = one_connection().await;
    let Db::Postgres(postgres) = &db else {
        unreachable!()
    };
    let first = backend_pid(&db).await;

    // Dropped while the server is still working on it, as a request's
    // work is when its client hangs up under Lab-Cancellation: on-disconnect:
    // the statement is polled until PostgreSQL reports it running, then dropped.
    const SLOW: &str = "SELECT 7 FROM pg_sleep(5)";
    {
        let slow = sqlx::query_scalar::<_, i32>(SLOW).fetch_one(&postgres.statements);
        tokio::pin!(slow);
        let running = async {
            loop {
                let active: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM pg_stat_activity WHERE query = $1 AND state = 'active'",
                )
                .bind(SLOW)
                .fetch_one(&postgres.pool)
                .await
                .unwrap();
                if active > 0 {
                    break;
                }
            }
        };
        tokio::select! {
            finished = &mut slow => panic!("the statement ended before it was abandoned: {finished:?}"),
            () = running => {}
        }
    }

    let next: i32 = sqlx::query_scalar("SELECT 42")
        .fetch_one(&postgres.statements)
        .await
        .unwrap();
    assert_eq!(next, 42, "not the abandoned statement's 7");
    assert_ne!(
        backend_pid(&db).await,
        first,
        "the abandoned connection was closed, not lent again"
    );
}

#[tokio::test]
async fn statements_wait_their_turn_for_the_connections_there_are() {
    let db = one_connection().await;
    let Db::Postgres(postgres) = &db else {
        unreachable!()
    };
    let sleeper = || {
        sqlx::query_scalar::<_, i32>("SELECT pg_backend_pid() FROM pg_sleep(0.2)")
            .fetch_one(&postgres.statements)
    };
    let (first, second) = futures::future::join(sleeper(), sleeper()).await;
    assert_eq!(
        first.unwrap(),
        second.unwrap(),
        "one connection, lent to each statement in turn"
    );
}
