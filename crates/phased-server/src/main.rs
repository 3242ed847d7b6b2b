//! Runs the atomic-phases order server alone, without the page:
//! `cargo run -p phased-server -- --help`.

fn main() -> std::process::ExitCode {
    lab_core::standalone::main::<phased_server::PhasedServer>(env!("CARGO_PKG_DESCRIPTION"))
}
