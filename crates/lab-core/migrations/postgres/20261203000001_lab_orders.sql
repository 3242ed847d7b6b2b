-- Every server's orders, in one table. The servers differ in how they guard
-- the key (each has a key table of its own), not in what an order is; the
-- `server` column keeps their orders apart.
CREATE TABLE lab_orders (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server TEXT NOT NULL,
    id UUID NOT NULL UNIQUE,
    lab_id TEXT NOT NULL,
    item TEXT NOT NULL,
    amount_cents BIGINT NOT NULL,
    idempotency_key TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX lab_orders_by_lab ON lab_orders (server, lab_id, seq);
CREATE INDEX lab_orders_by_key ON lab_orders (server, lab_id, idempotency_key);
