//! The whole lab started inside this process on a port of its own, for the
//! commands that drive it (`bench --classroom`, `explore`).

/// Starts the lab over `database_url` (a new SQLite file in the temporary
/// folder when `None`) with its default settings and `transaction_connections`;
/// returns its base URL and the storage's name.
pub async fn start_lab(
    database_url: Option<String>,
    transaction_connections: u32,
) -> Result<(String, &'static str), String> {
    let (database_url, name) = match database_url {
        None => {
            let file = std::env::temp_dir().join(format!("lab-{}.db", uuid::Uuid::new_v4()));
            (format!("sqlite://{}", file.display()), "sqlite")
        }
        Some(url) if url.starts_with("sqlite:") => (url, "sqlite"),
        Some(url) => (url, "postgres"),
    };
    let settings = crate::Settings {
        addr: "127.0.0.1:0".parse().expect("an address"),
        storage: lab_core::StorageArgs {
            database_url,
            transaction_connections,
            ..Default::default()
        },
        limits: Default::default(),
        timeouts: Default::default(),
        teacher: Default::default(),
        workshop: Default::default(),
        replicas: 1,
        ui_dir: std::env::temp_dir().join("idempotency-lab-no-page"),
    };
    let application = crate::Application::build(&settings)
        .await
        .map_err(|error| error.to_string())?;
    let base = format!("http://{}", application.local_addr());
    tokio::spawn(application.run_until(std::future::pending()));
    Ok((base, name))
}
