-- The orders move to lab-core's shared table (see its lab_orders
-- migration), keeping their order of arrival; this server's own table goes.
INSERT INTO lab_orders (server, id, lab_id, item, amount_cents, idempotency_key, created_at)
    SELECT 'naive', id, lab_id, item, amount_cents, idempotency_key, created_at FROM naive_orders ORDER BY seq;
DROP TABLE naive_orders;
