//! CPU time spent serving, read from Linux's `/proc`: for the lab, this
//! process's time less the time of the threads that only send the load
//! (they run on a runtime of their own, [`CLIENT_THREADS`]); for a peer,
//! the time of its process, given by PID. Requests per second say how fast;
//! CPU per request says how much machine a request costs, which is what a
//! second server on a loaded machine competes for.

use std::time::Duration;

/// The name of the load generator's threads (see `load::Bench`).
pub const CLIENT_THREADS: &str = "bench-client";

/// Clock ticks per second in `/proc/*/stat`: the kernel reports CPU time
/// there in `USER_HZ`, which is 100 on every Linux architecture in use.
const TICKS_PER_SECOND: u64 = 100;

/// Whose CPU time a cell reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuOf {
    /// This process, less its load generator's threads: the lab's servers
    /// (their runtime, the database driver's threads).
    ServersHere,
    /// All of this process: a flow called directly, with no client at all.
    ThisProcess,
    /// Another process (a peer's server).
    Process(u32),
}

/// The load generator's runtime; shut down without waiting when dropped
/// (a runtime may not be dropped inside another one's task).
pub struct ClientRuntime(Option<tokio::runtime::Runtime>);

impl ClientRuntime {
    pub fn start() -> std::io::Result<Self> {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name(CLIENT_THREADS)
            .enable_all()
            .build()
            .map(|runtime| Self(Some(runtime)))
    }

    pub fn spawn<F>(&self, work: F) -> tokio::task::JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.0.as_ref().expect("running until dropped").spawn(work)
    }
}

impl Drop for ClientRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

/// CPU time used so far, user and system.
pub fn used(of: CpuOf) -> Option<Duration> {
    let ticks = match of {
        CpuOf::ThisProcess => process_ticks("self")?,
        CpuOf::Process(pid) => process_ticks(&pid.to_string())?,
        CpuOf::ServersHere => process_ticks("self")?.saturating_sub(client_ticks()?),
    };
    Some(Duration::from_millis(ticks * 1000 / TICKS_PER_SECOND))
}

/// CPU time per request over a cell, in microseconds.
pub fn per_request(
    before: Option<Duration>,
    after: Option<Duration>,
    requests: usize,
) -> Option<f64> {
    let spent = after?.checked_sub(before?)?;
    (requests > 0).then(|| spent.as_secs_f64() * 1e6 / requests as f64)
}

fn process_ticks(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    ticks_of(&stat)
}

/// The load generator's threads' ticks, summed.
fn client_ticks() -> Option<u64> {
    let mut total = 0;
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let path = task.path();
        let name = std::fs::read_to_string(path.join("comm")).unwrap_or_default();
        if name.trim_end() == CLIENT_THREADS {
            let stat = std::fs::read_to_string(path.join("stat")).unwrap_or_default();
            total += ticks_of(&stat).unwrap_or(0);
        }
    }
    Some(total)
}

/// `utime + stime` of a `/proc/…/stat` line (fields 14 and 15). The name
/// in parentheses may hold spaces, so the fields are counted after its `)`.
fn ticks_of(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(user + system)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_and_system_ticks_are_read_after_a_name_with_spaces() {
        let stat = "4242 (tokio runtime) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 70 0 0 20 0 9 0 1234 0 0";
        assert_eq!(ticks_of(stat), Some(320));
        assert_eq!(ticks_of("garbage"), None);
    }

    #[test]
    fn this_process_has_spent_cpu_and_a_cell_divides_it_by_its_requests() {
        let mut spin = 0u64;
        for n in 0..5_000_000u64 {
            spin = spin.wrapping_add(n * n);
        }
        assert!(spin > 0);
        assert!(used(CpuOf::ThisProcess).is_some());
        assert!(used(CpuOf::ServersHere).is_some());
        let (before, after) = (Duration::from_millis(10), Duration::from_millis(30));
        assert_eq!(per_request(Some(before), Some(after), 100), Some(200.0));
        assert_eq!(per_request(None, Some(after), 100), None);
        assert_eq!(per_request(Some(before), Some(after), 0), None);
    }
}
