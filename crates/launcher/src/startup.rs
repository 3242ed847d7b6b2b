//! What the lab prints when it has started: where the page is, each
//! design's API, the receivers' and the teacher's way in.

use std::net::SocketAddr;

use lab_core::OrderServer;
use locked_server::LockedServer;
use naive_server::NaiveServer;
use onetrip_server::OneTripServer;
use phased_server::PhasedServer;
use safe_server::SafeServer;
use transactional_server::TransactionalServer;

/// Every design with what it does in a few words, for the start-up message.
pub const DESIGNS: [(&str, &str); 6] = [
    (NaiveServer::NAME, "look the key up, then create the order"),
    (
        LockedServer::NAME,
        "the naive flow behind a lock in process memory",
    ),
    (
        SafeServer::NAME,
        "claim the key first, under a UNIQUE constraint",
    ),
    (
        TransactionalServer::NAME,
        "claim, order and answer in one transaction",
    ),
    (
        PhasedServer::NAME,
        "atomic phases with recovery points and an outbox",
    ),
    (
        OneTripServer::NAME,
        "claim, order and answer in one statement: one round trip",
    ),
];

/// What the lab prints when it has started: where the page is, each
/// design's API, and the teacher's way in (`token_made`: the token the lab
/// made, since nothing else knows it; `None` when one was given).
pub fn startup_message(addr: SocketAddr, storage: &str, token_made: Option<&str>) -> String {
    let mut lines = vec![
        format!("Idempotency Lab is running (storage: {storage})."),
        format!("  Open http://{addr}/ in a browser."),
        format!(
            "  Order APIs, one per design (POST with an Idempotency-Key; GET lists, DELETE clears):"
        ),
    ];
    for (name, what) in DESIGNS {
        lines.push(format!(
            "    http://{addr}/api/{name}/orders{:pad$}  {what}",
            "",
            pad = "transactional".len() - name.len()
        ));
    }
    lines.push(format!(
        "  The API described: http://{addr}/api/openapi.json"
    ));
    match token_made {
        Some(token) => {
            lines.push(format!(
                "  Teacher's token (reads every lab; set --teacher-token to keep one across restarts): {token}"
            ));
            lines.push(format!(
                "  Teacher's view of the room: http://{addr}/teacher?token={token}"
            ));
        }
        None => lines.push(format!(
            "  Teacher's token: the one given with --teacher-token; the teacher's view is http://{addr}/teacher?token=TOKEN"
        )),
    }
    lines.push("Press Ctrl-C to stop.".to_owned());
    lines.join("\n")
}
