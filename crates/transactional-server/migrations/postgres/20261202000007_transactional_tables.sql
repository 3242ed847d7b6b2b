-- The transactional server's tables. As on the safe server, a UNIQUE
-- constraint on (lab_id, idempotency_key) decides which request gets a key.
-- Unlike it, the claim, the order and the saved answer are written in one
-- transaction: no other request ever sees a claim without its answer, and a
-- request that dies half-way leaves nothing behind to block its retry.
CREATE TABLE transactional_orders (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id UUID NOT NULL UNIQUE,
    lab_id TEXT NOT NULL,
    item TEXT NOT NULL,
    amount_cents BIGINT NOT NULL,
    idempotency_key TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX transactional_orders_by_lab ON transactional_orders (lab_id, seq);

CREATE TABLE transactional_idempotency_keys (
    lab_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    -- A hash of method, path and canonical body: a key belongs to one request.
    request_fingerprint TEXT NOT NULL,
    -- NULL only inside the claiming transaction; never once it has committed.
    status_code INTEGER,
    response_body TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    -- After this the key no longer counts, and the cleanup job deletes it.
    expires_at TIMESTAMPTZ NOT NULL,
    CONSTRAINT transactional_idempotency_keys_one_claim UNIQUE (lab_id, idempotency_key)
);
CREATE INDEX transactional_idempotency_keys_expiry ON transactional_idempotency_keys (expires_at);
