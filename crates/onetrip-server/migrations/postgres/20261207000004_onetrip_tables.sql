-- The one-trip server's keys. The same UNIQUE claim as the transactional
-- server's, but a key row is only ever written whole, with its answer, by
-- the statement that also inserts the order: there is no unanswered claim,
-- so status_code and response_body are never NULL.
CREATE TABLE onetrip_idempotency_keys (
    lab_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    -- A hash of method, path and canonical body: a key belongs to one request.
    request_fingerprint TEXT NOT NULL,
    status_code INTEGER NOT NULL,
    response_body TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    -- After this the key no longer counts: the next request with it takes
    -- the row over, and the cleanup job deletes it.
    expires_at TIMESTAMPTZ NOT NULL,
    CONSTRAINT onetrip_idempotency_keys_one_claim UNIQUE (lab_id, idempotency_key)
);
CREATE INDEX onetrip_idempotency_keys_expiry ON onetrip_idempotency_keys (expires_at);
