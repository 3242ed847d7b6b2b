//! Runs the safe order server alone, without the page:
//! `cargo run -p safe-server -- --help`.

fn main() -> std::process::ExitCode {
    lab_core::standalone::main::<safe_server::SafeServer>(env!("CARGO_PKG_DESCRIPTION"))
}
