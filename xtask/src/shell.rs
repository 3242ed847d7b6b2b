//! Running commands loudly: every command is printed before it runs, and a
//! failure says which command failed.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

/// Prints a numbered step heading.
pub fn step(number: usize, total: usize, what: &str) {
    println!("\n==> [{number}/{total}] {what}");
}

/// Prints a progress line inside a step.
pub fn say(what: &str) {
    println!("    {what}");
}

/// A command that can be run with [`Checked::checked`].
pub fn command(program: impl AsRef<OsStr>) -> Command {
    Command::new(program)
}

/// Runs a command, failing with its command line if it fails.
pub trait Checked {
    /// Runs to completion; an error names the command and its exit status.
    fn checked(&mut self) -> Result<()>;
    /// Runs and returns its standard output, or `None` if it cannot run or fails.
    fn output_text(&mut self) -> Option<String>;
}

impl Checked for Command {
    fn checked(&mut self) -> Result<()> {
        let line = describe(self);
        println!("    $ {line}");
        let status = self
            .status()
            .with_context(|| format!("cannot start `{line}`"))?;
        if !status.success() {
            bail!("`{line}` failed ({status})");
        }
        Ok(())
    }

    fn output_text(&mut self) -> Option<String> {
        let output = self.output().ok()?;
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

/// Runs `cargo ARGS…`.
pub fn cargo(args: &[&str]) -> Result<()> {
    command("cargo").args(args).checked()
}

/// Whether `program` can be found on `PATH`.
pub fn on_path(program: &str) -> bool {
    command("sh")
        .args(["-c", &format!("command -v {program}")])
        .output_text()
        .is_some()
}

/// Runs `program` in place of this process (so Ctrl-C reaches it directly).
pub fn replace_process_with(program: &Path, args: &[String]) -> Result<()> {
    let mut command = command(program);
    command.args(args);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let error = command.exec();
        Err(error).with_context(|| format!("cannot start {}", program.display()))
    }
    #[cfg(not(unix))]
    {
        command.checked()
    }
}

/// What a `cargo test` run reported, added up over its test binaries.
pub struct TestTally {
    /// Tests that passed.
    pub passed: u64,
    /// Tests that failed.
    pub failed: u64,
    /// Whether cargo itself exited successfully.
    pub succeeded: bool,
}

/// Runs `cargo test …`, passing its output through and adding up its
/// `test result:` lines.
pub fn run_tests(command: &mut Command) -> Result<TestTally> {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;

    let line = describe(command);
    println!("    $ {line}");
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start `{line}`"))?;
    let mut tally = TestTally {
        passed: 0,
        failed: 0,
        succeeded: false,
    };
    let stdout = child.stdout.take().expect("stdout is piped");
    for output_line in BufReader::new(stdout).lines() {
        let output_line = output_line?;
        println!("{output_line}");
        if let Some(result) = output_line.strip_prefix("test result: ") {
            tally.passed += count_before(result, " passed");
            tally.failed += count_before(result, " failed");
        }
    }
    tally.succeeded = child.wait()?.success();
    Ok(tally)
}

/// In `ok. 5 passed; 0 failed; …`, the number just before `label`.
fn count_before(result: &str, label: &str) -> u64 {
    result
        .split(';')
        .find_map(|part| {
            part.trim()
                .trim_start_matches("ok. ")
                .trim_start_matches("FAILED. ")
                .strip_suffix(label)
        })
        .and_then(|number| number.trim().parse().ok())
        .unwrap_or(0)
}

fn describe(command: &Command) -> String {
    let mut line = command.get_program().to_string_lossy().into_owned();
    for arg in command.get_args() {
        line.push(' ');
        line.push_str(&arg.to_string_lossy());
    }
    line
}

#[cfg(test)]
mod tests {
    use super::count_before;

    #[test]
    fn passed_and_failed_counts_are_read_from_a_result_line() {
        let line =
            "FAILED. 22 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.48s";
        assert_eq!(count_before(line, " passed"), 22);
        assert_eq!(count_before(line, " failed"), 2);
        assert_eq!(
            count_before("ok. 5 passed; 0 failed; 0 ignored", " passed"),
            5
        );
    }
}
