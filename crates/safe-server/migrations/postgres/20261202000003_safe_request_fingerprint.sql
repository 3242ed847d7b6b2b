-- A key belongs to one request: remember a fingerprint of the request that
-- claimed it (a hash of method, path and canonical JSON body), so the same
-- key with a different body is refused instead of silently replayed.
-- Rows from before this migration have none and are never compared.
ALTER TABLE safe_idempotency_keys ADD COLUMN request_fingerprint TEXT;
