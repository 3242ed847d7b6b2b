-- The key table of the test-only mutants of the safe server
-- (tests/src/mutants.rs): the safe server's columns without its UNIQUE
-- constraint, which is the point of them.
CREATE TABLE mutant_idempotency_keys (
    lab_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    status_code INTEGER,
    response_body TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX mutant_idempotency_keys_by_key ON mutant_idempotency_keys (lab_id, idempotency_key);
