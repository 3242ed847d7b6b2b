-- The payment provider's charges. Like Stripe, the provider keeps the key a
-- shop sends with a charge: a second request with the same key gets the
-- first charge back instead of a new one. The constraint, per shop and lab,
-- is how it knows.
CREATE TABLE outside_charges (
    id TEXT PRIMARY KEY,
    merchant TEXT NOT NULL,
    lab_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    amount_cents BIGINT NOT NULL,
    description TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    CONSTRAINT outside_charges_one_per_key UNIQUE (merchant, lab_id, idempotency_key)
);
CREATE INDEX outside_charges_by_time ON outside_charges (created_at);

-- The mail sink's delivered e-mails, one row per e-mail a customer would
-- find in their inbox. A message id seen before is not delivered again.
CREATE TABLE outside_emails (
    id TEXT PRIMARY KEY,
    sender TEXT NOT NULL,
    lab_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    subject TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    CONSTRAINT outside_emails_one_per_message UNIQUE (sender, lab_id, message_id)
);
CREATE INDEX outside_emails_by_time ON outside_emails (created_at);
