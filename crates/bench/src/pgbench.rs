//! The raw rate of the naive and safe flows' statements on PostgreSQL,
//! measured by PostgreSQL's own load generator, `pgbench`: the same three
//! statements as each server sends (`pgbench/naive.sql`, `pgbench/safe.sql`),
//! from a C client with prepared statements and no HTTP, pool or runtime
//! in between. The lab's safe server is compared with it (a goal: at least
//! 0.9 × its rate); pgbench's own CPU per request is the least a client
//! spends on those three round trips; and the two scripts' rates say what
//! the safe flow's statements cost beside the naive flow's, whoever sends them.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use lab_wire::LabId;

use crate::config::{BenchError, CellResult, Target, Workload};
use crate::load::{Bench, KEYS_PER_LAB};
use crate::stats::Latencies;

/// A flow whose statements pgbench sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Look up, insert the order, save the key.
    Naive,
    /// Claim, insert the order, save the answer.
    Safe,
}

impl Flow {
    /// Both, in report order.
    pub const ALL: [Self; 2] = [Self::Naive, Self::Safe];

    /// The name of its rows.
    pub fn target(self) -> &'static str {
        match self {
            Self::Naive => "pgbench-naive",
            Self::Safe => SAFE_TARGET,
        }
    }

    /// Its statements, as a pgbench script.
    fn script(self) -> &'static str {
        match self {
            Self::Naive => include_str!("../pgbench/naive.sql"),
            Self::Safe => include_str!("../pgbench/safe.sql"),
        }
    }

    /// Whose tables it writes: the target its orders are counted for.
    fn counted_as(self) -> Target {
        match self {
            Self::Naive => Target::NaiveSql,
            Self::Safe => Target::SafeSql,
        }
    }
}

/// The name of the safe flow's pgbench rows.
pub const SAFE_TARGET: &str = "pgbench-safe";

/// What one pgbench run measured.
pub(crate) struct Run {
    /// Scripts run per second (pgbench's `tps`, without connection time).
    pub per_second: f64,
    /// Each script's latency, from pgbench's log.
    pub latencies: Vec<Duration>,
    /// pgbench's own CPU time (user and system) per script, in µs.
    pub cpu_us_per_request: Option<f64>,
}

/// Whether `pgbench` can be run (it comes with PostgreSQL's client tools).
pub(crate) fn available() -> bool {
    std::process::Command::new("pgbench")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// Measures one cell: pgbench runs `flow` from `concurrency` clients
/// against `bench`'s database, in labs of a learner's size as the lab's
/// own cells do; then its orders are counted and deleted.
pub(crate) async fn measure(
    bench: &Bench,
    url: &str,
    flow: Flow,
    concurrency: usize,
    requests: usize,
) -> Result<CellResult, BenchError> {
    let prefix = format!("pgbench-{}-", uuid::Uuid::new_v4().simple());
    let labs = requests.div_ceil(KEYS_PER_LAB).max(1);
    let job = Job {
        url,
        flow,
        prefix: &prefix,
        labs,
        concurrency,
        requests,
    };
    let run = job.run().await.map_err(BenchError::Pgbench)?;
    let (mut stored, mut distinct) = (0, 0);
    for n in 1..=labs {
        let lab = LabId::try_from(format!("{prefix}{n}").as_str())
            .expect("a uuid and a number make a valid lab id");
        let (in_lab, distinct_in_lab) = bench.count_and_clear(flow.counted_as(), &lab).await?;
        stored += in_lab;
        distinct += distinct_in_lab;
    }
    let sent = requests.div_ceil(concurrency.max(1)) * concurrency.max(1);
    let mut took = run.latencies;
    Ok(CellResult {
        storage: "postgres",
        target: flow.target(),
        workload: Workload::UniqueKeys.name(),
        concurrency,
        requests: took.len(),
        requests_per_second: run.per_second,
        latency_ms: Latencies::of(&mut took),
        created_or_replayed: took.len(),
        conflicts: 0,
        errors: sent.saturating_sub(took.len()),
        keys: took.len(),
        orders: Some(stored),
        duplicates: Some(stored - distinct),
        cpu_us_per_request: run.cpu_us_per_request,
    })
}

/// One pgbench run: `flow` `requests` times (rounded up to a whole number
/// per client) from `concurrency` clients against `url`, each script in
/// one of the labs `{prefix}1` … `{prefix}{labs}` at random.
struct Job<'a> {
    url: &'a str,
    flow: Flow,
    prefix: &'a str,
    labs: usize,
    concurrency: usize,
    requests: usize,
}

impl Job<'_> {
    /// Runs it in a folder of its own (its script and logs), removed after.
    async fn run(&self) -> Result<Run, String> {
        let workdir = std::env::temp_dir().join(format!(
            "idempotency-lab-pgbench-{}",
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::create_dir_all(&workdir).map_err(|error| error.to_string())?;
        let measured = self.run_in(&workdir).await;
        let _ = std::fs::remove_dir_all(&workdir);
        measured
    }

    async fn run_in(&self, workdir: &Path) -> Result<Run, String> {
        let Self {
            url,
            flow,
            prefix,
            labs,
            concurrency,
            requests,
        } = *self;
        let script = workdir.join("flow.sql");
        std::fs::write(&script, flow.script()).map_err(|error| error.to_string())?;
        let clients = concurrency.max(1);
        let cpu_before = children_cpu();
        let output = tokio::process::Command::new("pgbench")
            .args(["--no-vacuum", "--protocol=prepared", "--log"])
            .arg(format!("--log-prefix={}", workdir.join("log").display()))
            .arg(format!("--client={clients}"))
            .arg(format!("--jobs={}", clients.min(2)))
            .arg(format!("--transactions={}", requests.div_ceil(clients)))
            .arg(format!("--define=prefix={prefix}"))
            .arg(format!("--define=labs={}", labs.max(1)))
            .arg(format!("--file={}", script.display()))
            // The URL goes in the environment, not the command line, where
            // anyone on the machine could read its password.
            .env("PGDATABASE", url)
            .output()
            .await
            .map_err(|error| format!("pgbench did not start: {error}"))?;
        let cpu_after = children_cpu();
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() {
            return Err(format!(
                "pgbench failed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        let per_second =
            tps(&stdout).ok_or_else(|| format!("no tps in pgbench's output: {stdout}"))?;
        let latencies = read_logs(workdir)?;
        let cpu_us_per_request = match (cpu_before, cpu_after) {
            (Some(before), Some(after)) if !latencies.is_empty() => {
                Some(after.saturating_sub(before).as_secs_f64() * 1e6 / latencies.len() as f64)
            }
            _ => None,
        };
        Ok(Run {
            per_second,
            latencies,
            cpu_us_per_request,
        })
    }
}

/// pgbench's `tps = 1234.5 (without initial connection time)`.
fn tps(stdout: &str) -> Option<f64> {
    stdout
        .lines()
        .find_map(|line| line.strip_prefix("tps = "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok())
}

/// Every script's latency from pgbench's per-transaction logs (one file
/// per thread): `client transaction latency_us script epoch_s epoch_us`.
fn read_logs(workdir: &Path) -> Result<Vec<Duration>, String> {
    let mut latencies = Vec::new();
    let files: Vec<PathBuf> = std::fs::read_dir(workdir)
        .map_err(|error| error.to_string())?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("log."))
        })
        .collect();
    for file in files {
        let text = std::fs::read_to_string(&file).map_err(|error| error.to_string())?;
        latencies.extend(text.lines().filter_map(latency_of));
    }
    Ok(latencies)
}

fn latency_of(line: &str) -> Option<Duration> {
    let micros: u64 = line.split_whitespace().nth(2)?.parse().ok()?;
    Some(Duration::from_micros(micros))
}

/// The CPU time (user and system) of this process's children that have
/// ended and been waited for: pgbench, once its run is over.
fn children_cpu() -> Option<Duration> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a whole `rusage` into the pointer it is given.
    let usage = unsafe {
        if libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) != 0 {
            return None;
        }
        usage.assume_init()
    };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    Some(time(usage.ru_utime) + time(usage.ru_stime))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_read_from_pgbenchs_summary() {
        let stdout = "number of transactions actually processed: 3000/3000\n\
                      latency average = 1.234 ms\n\
                      initial connection time = 4.567 ms\n\
                      tps = 1618.033989 (without initial connection time)\n";
        assert_eq!(tps(stdout), Some(1618.033989));
        assert_eq!(tps("pgbench (15.8)\n"), None);
    }

    #[test]
    fn a_log_line_gives_its_latency_in_microseconds() {
        assert_eq!(
            latency_of("0 199 2015 0 1733605200 123456"),
            Some(Duration::from_micros(2015))
        );
        assert_eq!(latency_of("garbage"), None);
    }
}
