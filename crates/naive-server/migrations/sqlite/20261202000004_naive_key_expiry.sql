-- Keys do not live forever: each row says when it stops counting (the
-- request's retention, a day by default). A retry after that is treated as a
-- new request, and the cleanup job deletes expired rows in batches.
-- Rows from before this migration have no expiry and are kept.
ALTER TABLE naive_idempotency_keys ADD COLUMN expires_at TEXT;
CREATE INDEX naive_idempotency_keys_expiry ON naive_idempotency_keys (expires_at);
