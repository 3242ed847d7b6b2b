//! Runs the locked order server alone, without the page:
//! `cargo run -p locked-server -- --help`.

fn main() -> std::process::ExitCode {
    lab_core::standalone::main::<locked_server::LockedServer>(env!("CARGO_PKG_DESCRIPTION"))
}
