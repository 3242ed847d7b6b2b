-- The scheduler's challenges a lab has met, as its lesson page reports them
-- (a JSON list of names, written by the server after checking each).
ALTER TABLE lab_lessons ADD COLUMN challenges TEXT NOT NULL DEFAULT '[]';
