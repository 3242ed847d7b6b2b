//! Making sure a PostgreSQL server is there for the backend tests.

use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::Duration;

use anyhow::{Result, bail};

use crate::shell::{Checked, command, say};
use crate::tools::apt_install;

/// The test database on the machine's own PostgreSQL, trust auth.
const DEFAULT_URL: &str = "postgres://postgres@127.0.0.1:5432/idempotency_lab_test";
/// Used only when this command installed PostgreSQL itself and set this password.
const INSTALLED_URL: &str =
    "postgres://postgres:idempotency-lab@127.0.0.1:5432/idempotency_lab_test";

/// Returns the URL the tests should use, starting (or installing) PostgreSQL if needed.
pub fn ensure_test_database_server() -> Result<String> {
    if let Ok(url) = std::env::var("TEST_DATABASE_URL") {
        say("Using TEST_DATABASE_URL from the environment");
        return Ok(url);
    }
    if listening() {
        say("PostgreSQL is listening on 127.0.0.1:5432");
        return Ok(DEFAULT_URL.to_owned());
    }
    let installed_now = !Path::new("/etc/postgresql").is_dir();
    if installed_now {
        say("PostgreSQL is not installed: installing it from Debian");
        apt_install(&["postgresql"])?;
    }
    start_clusters()?;
    if !wait_until_listening() {
        bail!(
            "PostgreSQL did not start on 127.0.0.1:5432; start it, or set TEST_DATABASE_URL to a server the tests may use"
        );
    }
    if installed_now {
        // A fresh Debian install asks for a password over TCP: give the
        // postgres role one that only this lab's tests use.
        command("runuser")
            .args([
                "-u",
                "postgres",
                "--",
                "psql",
                "-q",
                "-c",
                "ALTER USER postgres PASSWORD 'idempotency-lab'",
            ])
            .checked()?;
        return Ok(INSTALLED_URL.to_owned());
    }
    Ok(DEFAULT_URL.to_owned())
}

fn start_clusters() -> Result<()> {
    let versions = std::fs::read_dir("/etc/postgresql")?
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned());
    for version in versions {
        say(&format!("Starting PostgreSQL {version}"));
        command("pg_ctlcluster")
            .args(["--skip-systemctl-redirect", &version, "main", "start"])
            .checked()?;
    }
    Ok(())
}

fn listening() -> bool {
    let addr = SocketAddr::from(([127, 0, 0, 1], 5432));
    TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_ok()
}

fn wait_until_listening() -> bool {
    (0..40).any(|_| {
        if listening() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(250));
        false
    })
}
