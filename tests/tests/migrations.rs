//! Upgrading a lab that already holds orders: each server's orders move
//! from its own table into the shared `lab_orders` and none is lost.

use chrono::Utc;
use lab_core::{Db, OrderServer};
use lab_e2e::Backend;
use lab_wire::LabId;
use naive_server::NaiveServer;
use safe_server::SafeServer;
use sqlx::migrate::Migrator;
use transactional_server::TransactionalServer;

/// The first migration of the shared orders table: what came before it is
/// the layout an older lab left behind.
const SHARED_ORDERS_VERSION: i64 = 20261203000001;

async fn orders_stored_before_the_shared_table_survive_the_upgrade<S: OrderServer>() {
    let Db::Sqlite {
        writer,
        checkpoints,
        ..
    } = Backend::Sqlite.connect().await
    else {
        unreachable!("asked for SQLite")
    };
    let older: Vec<_> = (S::STORAGE.migrations)()
        .sqlite
        .iter()
        .filter(|migration| migration.version < SHARED_ORDERS_VERSION)
        .cloned()
        .collect();
    let mut older = Migrator::with_migrations(older);
    older.set_ignore_missing(true);
    older.run(&writer).await.expect("the older layout applies");
    let lab = LabId::try_from("upgraded-lab").unwrap();
    let id = uuid::Uuid::new_v4();
    let insert = format!(
        "INSERT INTO {}_orders (id, lab_id, item, amount_cents, idempotency_key, created_at) \
         VALUES ($1, $2, 'tea', 450, 'old-key', $3)",
        S::NAME
    );
    sqlx::query(sqlx::AssertSqlSafe(insert))
        .bind(id)
        .bind(lab.as_str())
        .bind(Utc::now())
        .execute(&writer)
        .await
        .expect("an order the older lab stored");

    let db = Db::Sqlite {
        writer: writer.clone(),
        readers: writer,
        checkpoints,
        orders_per_lab: lab_platform::db::DEFAULT_ORDERS_PER_LAB,
    };
    S::migrate(&db).await.expect("the upgrade applies");

    let orders = S::STORAGE
        .order_tables
        .list_orders(&db, &lab)
        .await
        .unwrap();
    assert_eq!(orders.len(), 1, "{}: {orders:?}", S::NAME);
    assert_eq!(orders[0].id, id);
    assert_eq!(orders[0].idempotency_key, "old-key");
    assert_eq!(orders[0].amount_cents, 450);
}

#[tokio::test]
async fn the_naive_servers_orders_survive_the_move_to_the_shared_table() {
    orders_stored_before_the_shared_table_survive_the_upgrade::<NaiveServer>().await;
}

#[tokio::test]
async fn the_safe_servers_orders_survive_the_move_to_the_shared_table() {
    orders_stored_before_the_shared_table_survive_the_upgrade::<SafeServer>().await;
}

#[tokio::test]
async fn the_transactional_servers_orders_survive_the_move_to_the_shared_table() {
    orders_stored_before_the_shared_table_survive_the_upgrade::<TransactionalServer>().await;
}

/// The lab's crates migrate one database, whose table of applied
/// migrations is keyed by version alone: two crates with one version
/// would have the second refused (or skipped) on a database the first
/// already migrated.
#[test]
fn no_two_crates_share_a_migration_version() {
    let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates");
    let mut seen = std::collections::BTreeMap::new();
    let mut clashes = Vec::new();
    for krate in std::fs::read_dir(&crates).unwrap().flatten() {
        let name = krate.file_name().to_string_lossy().into_owned();
        for backend in ["sqlite", "postgres"] {
            let Ok(files) = std::fs::read_dir(krate.path().join("migrations").join(backend)) else {
                continue;
            };
            for file in files.flatten() {
                let file = file.file_name().to_string_lossy().into_owned();
                let version = file.split('_').next().unwrap_or_default().to_owned();
                if let Some(other) = seen.insert((backend, version.clone()), name.clone())
                    && other != name
                {
                    clashes.push(format!("{backend} {version}: {other} and {name}"));
                }
            }
        }
    }
    assert!(seen.len() > 20, "the migrations were found: {}", seen.len());
    assert!(clashes.is_empty(), "{clashes:#?}");
}
