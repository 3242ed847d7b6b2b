-- The locked server's keys: the naive design's table (no unique
-- constraint), apart from the naive server's, since a page sends the same
-- key to both of its panes. Its orders are in lab-core's shared table.
CREATE TABLE locked_idempotency_keys (
    lab_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    status_code INTEGER NOT NULL,
    response_body TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ
);
CREATE INDEX locked_idempotency_keys_lookup ON locked_idempotency_keys (lab_id, idempotency_key);
CREATE INDEX locked_idempotency_keys_expiry ON locked_idempotency_keys (expires_at);
