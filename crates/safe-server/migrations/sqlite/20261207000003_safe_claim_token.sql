-- A fencing token: each claim, and each takeover of a claim, writes a new
-- one. With Lab-Fencing: on, a request writes its order only if the key
-- still carries its token, so a request whose lock ran out and whose claim
-- a retry took over cannot write (and charge) late.
ALTER TABLE safe_idempotency_keys ADD COLUMN claim_token TEXT;
