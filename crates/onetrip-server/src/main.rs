//! Runs the one-trip order server alone, without the page:
//! `cargo run -p onetrip-server -- --help`.

fn main() -> std::process::ExitCode {
    lab_core::standalone::main::<onetrip_server::OneTripServer>(env!("CARGO_PKG_DESCRIPTION"))
}
