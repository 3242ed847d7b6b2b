-- The naive server's tables. The key table deliberately has NO unique
-- constraint: this is the article's first attempt, where an `if` in the
-- handler is all that stands between two requests and two orders.
CREATE TABLE naive_orders (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id BLOB NOT NULL UNIQUE,
    lab_id TEXT NOT NULL,
    item TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    idempotency_key TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX naive_orders_by_lab ON naive_orders (lab_id, seq);

CREATE TABLE naive_idempotency_keys (
    lab_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    status_code INTEGER NOT NULL,
    response_body TEXT NOT NULL,
    created_at TEXT NOT NULL
);
-- An index for fast look-ups, not a constraint: duplicates are allowed.
CREATE INDEX naive_idempotency_keys_lookup ON naive_idempotency_keys (lab_id, idempotency_key);
