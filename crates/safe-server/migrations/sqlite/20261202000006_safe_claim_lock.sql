-- A claimed key whose request never answers (the process crashed) must not
-- block its retries forever: the claim is a lock that runs out. Until
-- locked_until, retries get 409; after it, one retry may take the claim over.
-- Claims from before this migration have none and are never taken over.
ALTER TABLE safe_idempotency_keys ADD COLUMN locked_until TEXT;
