-- The audit trail (issue 44): one row for each change an operator or the server made, and for
-- each request a token's scopes refused. Kept indefinitely: a row is about 120 bytes with its indexes.
-- `token` is the token's name (never the token), `rollout-gate` or `server`; `client` the
-- client's address as the server saw it; `action` one of publish, delete, promote, rollback,
-- rollout-start, rollout-pause, rollout-resume, rollout-halt, rollout-rollback, gate-advance,
-- gate-complete, gate-halt, gate-rollback, root-served, refused.
CREATE TABLE audit_record (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    token TEXT NOT NULL,
    client TEXT,
    action TEXT NOT NULL,
    channel TEXT,
    release INTEGER,
    serial INTEGER,
    detail TEXT
);
CREATE INDEX audit_record_channel ON audit_record(channel, id);
CREATE INDEX audit_record_token ON audit_record(token, id);

-- The publisher's note on a release (`depot publish --message`), shown by `depot release ls`,
-- the dashboard and the audit trail.
ALTER TABLE release ADD COLUMN message TEXT;
