-- The atomic-phases server's key table, after Brandur Leach's design for
-- Stripe-like keys in Postgres. The key row is the request's progress: its
-- recovery point says which phases have committed (started, order-created,
-- charged, finished), so a retry after a crash resumes where the crashed
-- request stopped instead of starting over. locked_until keeps two
-- requests from working on one key at once; once it passes, a retry may
-- take the key over.
CREATE TABLE phased_idempotency_keys (
    lab_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    request_fingerprint TEXT NOT NULL,
    recovery_point TEXT NOT NULL,
    locked_until TIMESTAMPTZ NOT NULL,
    -- The provider's charge, once the charged phase has committed.
    charge_id TEXT,
    -- Set in the finished phase: the answer to replay.
    status_code INTEGER,
    response_body TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    CONSTRAINT phased_idempotency_keys_one_claim UNIQUE (lab_id, idempotency_key)
);
CREATE INDEX phased_idempotency_keys_expiry ON phased_idempotency_keys (expires_at);

-- E-mails staged in the same transaction as the phase that finishes the
-- order, and sent by a background enqueuer: the e-mail exists exactly
-- when the order's last phase committed, and is sent once.
CREATE TABLE phased_outbox (
    id TEXT PRIMARY KEY,
    lab_id TEXT NOT NULL,
    order_id TEXT NOT NULL,
    subject TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    sent_at TIMESTAMPTZ
);
CREATE INDEX phased_outbox_waiting ON phased_outbox (created_at) WHERE sent_at IS NULL;
