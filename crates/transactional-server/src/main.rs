//! Runs the transactional order server alone, without the page:
//! `cargo run -p transactional-server -- --help`.

fn main() -> std::process::ExitCode {
    lab_core::standalone::main::<transactional_server::TransactionalServer>(env!(
        "CARGO_PKG_DESCRIPTION"
    ))
}
