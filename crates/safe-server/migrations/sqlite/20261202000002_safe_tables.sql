-- The safe server's tables. The UNIQUE constraint on (lab_id, idempotency_key)
-- is the whole fix: the database, not the handler, decides which of two
-- racing requests claimed a key first.
CREATE TABLE safe_orders (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id BLOB NOT NULL UNIQUE,
    lab_id TEXT NOT NULL,
    item TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    idempotency_key TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX safe_orders_by_lab ON safe_orders (lab_id, seq);

CREATE TABLE safe_idempotency_keys (
    lab_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    -- Both NULL while the request that claimed the key is still running.
    status_code INTEGER,
    response_body TEXT,
    created_at TEXT NOT NULL,
    CONSTRAINT safe_idempotency_keys_one_claim UNIQUE (lab_id, idempotency_key)
);
