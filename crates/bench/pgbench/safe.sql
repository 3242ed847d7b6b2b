-- The safe server's three statements for one new order, each on its own
-- (autocommit), as crates/safe-server/src/store.rs and lab-core's
-- orders.rs send them: claim the key, insert the order (counting the
-- lab's orders up to its limit in the same statement), save the answer.
-- `bench` runs it with pgbench (crates/bench/src/pgbench.rs) to measure
-- what PostgreSQL allows for these statements with no lab in between.
-- Variables: :prefix (this cell's labs), :labs (how many), :client_id.
\set lab random(1, :labs)
\set key random(1, 1000000000000)
INSERT INTO safe_idempotency_keys (lab_id, idempotency_key, request_fingerprint, created_at, expires_at, locked_until, claim_token) VALUES (concat(:prefix::text, :lab::text), concat(:key::text, '-', :client_id::text), 'b5f2a0d0c8e1f4a7b3c6d9e2f5a8b1c4d7e0f3a6b9c2d5e8f1a4b7c0d3e6f9a2', now(), now() + interval '1 day', now() + interval '10 seconds', md5(:key::text));
INSERT INTO lab_orders (server, id, lab_id, item, amount_cents, idempotency_key, created_at) SELECT 'safe', gen_random_uuid(), concat(:prefix::text, :lab::text), 'coffee', 450, concat(:key::text, '-', :client_id::text), now() WHERE (SELECT COUNT(*) FROM (SELECT 1 FROM lab_orders WHERE server = 'safe' AND lab_id = concat(:prefix::text, :lab::text) LIMIT 1000) AS held) < 1000;
UPDATE safe_idempotency_keys SET status_code = 201, response_body = '{"id":"0b7c6a8e-2f1d-4c3b-9a5e-7d6f8e9a0b1c","item":"coffee","amount_cents":450,"created_at":"2026-12-07T21:00:00.000000Z"}' WHERE lab_id = concat(:prefix::text, :lab::text) AND idempotency_key = concat(:key::text, '-', :client_id::text);
