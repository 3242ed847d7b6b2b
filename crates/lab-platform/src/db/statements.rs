//! The connections PostgreSQL statements run on: lent to one statement at
//! a time and taken back the moment it has finished.
//!
//! Why not sqlx's own `PgPool` for this: sqlx 0.9 hands every connection
//! back to its pool through a spawned task that first pings it (a `Sync`
//! and its `ReadyForQuery`, one more round trip to the server) before
//! another query may use it. The lab's flows are a few one-statement round
//! trips each, so that doubled the round trips of every request: `strace`
//! counted about six `sendto` calls per safe order, for three statements,
//! and a quarter of the server's CPU went to the kernel's socket and
//! scheduler paths they wake (docs/benchmarks.md). Here a connection goes
//! straight back to the idle list instead. The ping guarded against a
//! connection left half-way through a message by a query whose future was
//! dropped (a client that hung up under `Lab-Cancellation: on-disconnect`);
//! such a connection, or one whose statement failed on the wire rather than
//! in the database, is closed instead of lent again.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::stream::{self, BoxStream, StreamExt};
use sqlx::postgres::{PgConnectOptions, PgConnection, PgQueryResult, PgRow, PgStatement};
use sqlx::postgres::{PgPool, PgTypeInfo, Postgres as Pg};
use sqlx::{Connection, Describe, Either, Error, Execute, Executor, SqlStr};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::gates;

/// A fixed number of connections to one PostgreSQL database, opened as
/// statements need them and kept open; `&Statements` runs a statement (it
/// is an sqlx `Executor`). The shared code's short transactions
/// ([`Statements::begin`]) run on an sqlx pool beside them.
#[derive(Clone)]
pub struct Statements {
    shared: Arc<Shared>,
    short_transactions: PgPool,
}

struct Shared {
    idle: Mutex<Vec<PgConnection>>,
    /// One permit per connection that may be open at once.
    permits: Arc<Semaphore>,
    options: PgConnectOptions,
    acquire_timeout: Duration,
}

impl std::fmt::Debug for Statements {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Statements")
            .field(
                "idle",
                &self.shared.idle.lock().map_or(0, |idle| idle.len()),
            )
            .field("free", &self.shared.permits.available_permits())
            .finish()
    }
}

/// A connection lent to one statement. Dropped after [`Lease::settle`],
/// it goes back to the idle list; dropped before, it is closed.
struct Lease {
    connection: Option<PgConnection>,
    settled: bool,
    /// Whether the statement's request runs under a schedule, which was
    /// told this connection's backend.
    scheduled: bool,
    shared: Arc<Shared>,
    _permit: OwnedSemaphorePermit,
}

impl Statements {
    /// At most `connections` connections made with the options of
    /// `short_transactions` (the pool [`Statements::begin`] uses); a
    /// statement that finds none free waits up to `acquire_timeout` for one.
    pub fn new(short_transactions: PgPool, connections: u32, acquire_timeout: Duration) -> Self {
        let options = short_transactions.connect_options().as_ref().clone();
        Self {
            shared: Arc::new(Shared {
                idle: Mutex::new(Vec::new()),
                permits: Arc::new(Semaphore::new(connections as usize)),
                options,
                acquire_timeout,
            }),
            short_transactions,
        }
    }

    /// A short transaction of the shared code (clearing a lab, say).
    pub async fn begin(&self) -> Result<sqlx::Transaction<'static, Pg>, Error> {
        self.short_transactions.begin().await
    }

    /// A connection for one statement: an idle one, or a new one while
    /// fewer than the limit are open. Waiters are served in turn.
    async fn lease(&self) -> Result<Lease, Error> {
        let shared = self.shared.clone();
        let permit = tokio::time::timeout(
            shared.acquire_timeout,
            shared.permits.clone().acquire_owned(),
        )
        .await
        .map_err(|_| Error::PoolTimedOut)?
        .map_err(|_| Error::PoolClosed)?;
        let idle = shared.idle.lock().ok().and_then(|mut idle| idle.pop());
        let mut connection = match idle {
            Some(connection) => connection,
            None => PgConnection::connect_with(&shared.options).await?,
        };
        let scheduled = gates::is_scheduled();
        if scheduled {
            gates::runs_on(backend_pid(&mut connection).await?, false);
        }
        Ok(Lease {
            connection: Some(connection),
            settled: false,
            scheduled,
            shared,
            _permit: permit,
        })
    }

    /// The backends that keep PostgreSQL backend `pid` waiting for a lock
    /// (none if it is not waiting): the database's own word on who blocks whom.
    pub async fn blocking_backends(&self, pid: i32) -> Result<Vec<i32>, Error> {
        sqlx::query_scalar("SELECT pg_blocking_pids($1)")
            .bind(pid)
            .fetch_one(self)
            .await
    }

    /// Closes the idle connections and lends no more.
    pub async fn close(&self) {
        self.shared.permits.close();
        let idle = match self.shared.idle.lock() {
            Ok(mut idle) => std::mem::take(&mut *idle),
            Err(_) => Vec::new(),
        };
        for connection in idle {
            let _ = connection.close().await;
        }
    }
}

/// The PostgreSQL backend (server process) `connection` talks to: how
/// `pg_locks` and `pg_blocking_pids` name it.
pub(crate) async fn backend_pid(connection: &mut PgConnection) -> Result<i32, Error> {
    sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(connection)
        .await
}

impl Lease {
    fn connection(&mut self) -> &mut PgConnection {
        self.connection
            .as_mut()
            .expect("a lease holds its connection until dropped")
    }

    /// The statement has finished with `outcome`: unless it failed on the
    /// wire, the connection is fit to lend again.
    fn settle<T>(&mut self, outcome: &Result<T, Error>) {
        self.settled = outcome.as_ref().err().is_none_or(failed_in_the_database);
    }
}

/// Whether `error` is the database's answer to the statement (a unique
/// violation, say), after which the connection carries on as before; an
/// I/O or protocol error may have left it anywhere.
fn failed_in_the_database(error: &Error) -> bool {
    matches!(error, Error::Database(_))
}

impl Drop for Lease {
    fn drop(&mut self) {
        if self.scheduled {
            // The backend may serve another request from now on.
            gates::statement_ended();
        }
        let Some(connection) = self.connection.take() else {
            return;
        };
        if self.settled
            && let Ok(mut idle) = self.shared.idle.lock()
        {
            idle.push(connection);
        }
        // Otherwise the connection is dropped here, which closes its socket.
    }
}

/// The statements of a `with_pool!` or `with_reader!` block run on the
/// [`Statements`] connections; only `fetch_many` and `fetch_optional` do
/// the work, the rest of sqlx's executor methods are built on them.
impl<'p> Executor<'p> for &'_ Statements {
    type Database = Pg;

    fn fetch_many<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxStream<'e, Result<Either<PgQueryResult, PgRow>, Error>>
    where
        'p: 'e,
        E: 'q + Execute<'q, Pg>,
    {
        let statements = self.clone();
        // The results are gathered before they are handed on, so that the
        // lease ends with the statement: the lab's queries return a lab's
        // worth of rows at most, which `fetch_all` would gather anyway.
        stream::once(async move {
            let gathered = match statements.lease().await {
                Ok(mut lease) => {
                    let results: Vec<_> = lease.connection().fetch_many(query).collect().await;
                    lease.settled = results
                        .iter()
                        .filter_map(|result| result.as_ref().err())
                        .all(failed_in_the_database);
                    results
                }
                Err(error) => vec![Err(error)],
            };
            stream::iter(gathered)
        })
        .flatten()
        .boxed()
    }

    fn fetch_optional<'e, 'q: 'e, E>(self, query: E) -> BoxFuture<'e, Result<Option<PgRow>, Error>>
    where
        'p: 'e,
        E: 'q + Execute<'q, Pg>,
    {
        let statements = self.clone();
        Box::pin(async move {
            let mut lease = statements.lease().await?;
            let row = lease.connection().fetch_optional(query).await;
            lease.settle(&row);
            row
        })
    }

    fn prepare_with<'e>(
        self,
        sql: SqlStr,
        parameters: &'e [PgTypeInfo],
    ) -> BoxFuture<'e, Result<PgStatement, Error>>
    where
        'p: 'e,
    {
        let statements = self.clone();
        Box::pin(async move {
            let mut lease = statements.lease().await?;
            let prepared = lease.connection().prepare_with(sql, parameters).await;
            lease.settle(&prepared);
            prepared
        })
    }

    fn describe<'e>(self, sql: SqlStr) -> BoxFuture<'e, Result<Describe<Pg>, Error>>
    where
        'p: 'e,
    {
        let statements = self.clone();
        Box::pin(async move {
            let mut lease = statements.lease().await?;
            let described = lease.connection().describe(sql).await;
            lease.settle(&described);
            described
        })
    }
}
