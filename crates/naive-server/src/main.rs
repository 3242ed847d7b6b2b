//! Runs the naive order server alone, without the page:
//! `cargo run -p naive-server -- --help`.

fn main() -> std::process::ExitCode {
    lab_core::standalone::main::<naive_server::NaiveServer>(env!("CARGO_PKG_DESCRIPTION"))
}
