-- Saved runs, kept verbatim as the page sent them, for their permalinks
-- (/runs/ID) and the teacher's view; deleted when they expire, and at most
-- a few dozen per lab.
CREATE TABLE lab_runs (
    id TEXT PRIMARY KEY,
    lab_id TEXT NOT NULL,
    saved_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    lesson_step INTEGER,
    panes_with_duplicates INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX lab_runs_by_lab ON lab_runs (lab_id, saved_at);
CREATE INDEX lab_runs_by_expiry ON lab_runs (expires_at);

-- Each lab's progress through the guided lesson: one row per lab.
CREATE TABLE lab_lessons (
    lab_id TEXT PRIMARY KEY,
    step INTEGER NOT NULL,
    furthest_step INTEGER NOT NULL,
    predictions_right INTEGER NOT NULL,
    predictions_made INTEGER NOT NULL,
    predictions TEXT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX lab_lessons_by_time ON lab_lessons (updated_at);
