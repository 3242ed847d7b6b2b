//! One query written once for both backends: these macros expand a block
//! once per backend, so each gets its own typed query, for a statement on
//! its own (`with_pool!`, `with_reader!`) or inside a request's
//! transaction (`with_tx!`).

/// Runs the same expression against whichever connections `db` holds, for
/// statements that write: on SQLite the writer, on PostgreSQL the
/// `Statements` connections.
///
/// The SQL in the servers' store modules is written once with `$1`-style
/// placeholders, which both SQLite and PostgreSQL understand; this macro
/// expands the code once per backend so each gets its own typed query.
///
/// Given a [`lab_wire::Gate`] first (`with_pool!(db, Gate::Claim, |pool| …)`),
/// a scheduled request stops there before the statement (see
/// [`crate::gates`]); the servers' flows name one for every statement, the
/// housekeeping jobs none.
#[macro_export]
macro_rules! with_pool {
    ($db:expr, |$pool:ident| $body:expr) => {
        match $db {
            $crate::Db::Sqlite { writer: $pool, .. } => $body,
            $crate::Db::Postgres($crate::db::Postgres {
                statements: $pool, ..
            }) => $body,
        }
    };
    ($db:expr, $gate:expr, |$pool:ident| $body:expr) => {{
        $crate::gates::wait_at($gate).await;
        $crate::with_pool!($db, |$pool| $body)
    }};
}

/// Like [`with_pool!`], for statements that only read (on SQLite: the
/// read-only connections).
#[macro_export]
macro_rules! with_reader {
    ($db:expr, |$pool:ident| $body:expr) => {
        match $db {
            $crate::Db::Sqlite { readers: $pool, .. } => $body,
            $crate::Db::Postgres($crate::db::Postgres {
                statements: $pool, ..
            }) => $body,
        }
    };
    ($db:expr, $gate:expr, |$pool:ident| $body:expr) => {{
        $crate::gates::wait_at($gate).await;
        $crate::with_reader!($db, |$pool| $body)
    }};
}

/// Runs the same expression against the connection of whichever
/// transaction `tx` (a `&mut DbTx`) holds; see [`with_pool!`].
#[macro_export]
macro_rules! with_tx {
    ($tx:expr, |$conn:ident| $body:expr) => {
        match $tx {
            $crate::db::DbTx::Sqlite(tx) => {
                let $conn = &mut **tx;
                $body
            }
            $crate::db::DbTx::Postgres(tx, _) => {
                let $conn = &mut **tx;
                $body
            }
        }
    };
    ($tx:expr, $gate:expr, |$conn:ident| $body:expr) => {{
        let tx: &mut $crate::DbTx = $tx;
        $crate::gates::wait_in_transaction($gate, tx.is_sqlite()).await;
        $crate::with_tx!(tx, |$conn| $body)
    }};
}
