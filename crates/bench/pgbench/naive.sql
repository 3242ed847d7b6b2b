-- The naive server's three statements for one new order, each on its own
-- (autocommit), as crates/naive-server/src/store.rs and lab-core's
-- orders.rs send them: look the key up, insert the order (counting the
-- lab's orders up to its limit in the same statement), save the key.
-- `bench` runs it with pgbench (crates/bench/src/pgbench.rs) beside
-- safe.sql: what the two flows' statements cost with no lab in between.
-- Variables: :prefix (this cell's labs), :labs (how many), :client_id.
\set lab random(1, :labs)
\set key random(1, 1000000000000)
SELECT status_code, response_body FROM naive_idempotency_keys WHERE lab_id = concat(:prefix::text, :lab::text) AND idempotency_key = concat(:key::text, '-', :client_id::text) AND (expires_at IS NULL OR expires_at > now()) ORDER BY created_at LIMIT 1;
INSERT INTO lab_orders (server, id, lab_id, item, amount_cents, idempotency_key, created_at) SELECT 'naive', gen_random_uuid(), concat(:prefix::text, :lab::text), 'coffee', 450, concat(:key::text, '-', :client_id::text), now() WHERE (SELECT COUNT(*) FROM (SELECT 1 FROM lab_orders WHERE server = 'naive' AND lab_id = concat(:prefix::text, :lab::text) LIMIT 1000) AS held) < 1000;
INSERT INTO naive_idempotency_keys (lab_id, idempotency_key, status_code, response_body, created_at, expires_at) VALUES (concat(:prefix::text, :lab::text), concat(:key::text, '-', :client_id::text), 201, '{"id":"0b7c6a8e-2f1d-4c3b-9a5e-7d6f8e9a0b1c","item":"coffee","amount_cents":450,"created_at":"2026-12-07T21:00:00.000000Z"}', now(), now() + interval '1 day');
