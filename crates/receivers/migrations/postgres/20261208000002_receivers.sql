-- What the shop's webhook receivers did: one row per parcel sent. The
-- naive receiver adds one for every delivery it is handed; the inbox
-- receiver only for an event it had not processed before.
CREATE TABLE shipments (
    id TEXT PRIMARY KEY,
    receiver TEXT NOT NULL,
    lab_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    order_id TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX shipments_by_lab ON shipments (lab_id, receiver, event_id);
CREATE INDEX shipments_by_time ON shipments (created_at);

-- The inbox: every event the inbox receiver has processed, written in the
-- same transaction as its shipment. The primary key is what turns a second
-- delivery of an event into "already done": of two deliveries at once, one
-- inserts and the other waits for it and then inserts nothing.
CREATE TABLE processed_events (
    lab_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    processed_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (lab_id, event_id)
);
CREATE INDEX processed_events_by_time ON processed_events (processed_at);
