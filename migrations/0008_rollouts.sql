-- A release may be critical (apps should apply it at once) and need a minimum app version;
-- both go into the signed channel documents that name it.
ALTER TABLE release ADD COLUMN critical INTEGER NOT NULL DEFAULT 0;
ALTER TABLE release ADD COLUMN minimum_client_version TEXT;

-- Staged rollouts (docs/releases.md, "Rollouts"): a channel's release reaches a share of its
-- installs step by step; the server advances a step when the installs' reports since the last
-- one pass the gate, and halts (and may roll back) when they do not.

-- One row a rollout. While ended_at is NULL the rollout is live: the channel's document names it
-- (release at percent, salt), halted and paused ones included, at their frozen percent. steps
-- are the percentages, rising and ending at 100; step is the index of the current one.
CREATE TABLE rollout (
    id INTEGER PRIMARY KEY,
    channel TEXT NOT NULL,
    release TEXT NOT NULL REFERENCES release(id),
    -- The release it replaces: the channel's while the rollout is live.
    base TEXT NOT NULL REFERENCES release(id),
    salt TEXT NOT NULL,
    steps TEXT NOT NULL,
    step INTEGER NOT NULL CHECK (step >= 0),
    percent INTEGER NOT NULL CHECK (percent BETWEEN 0 AND 100),
    state TEXT NOT NULL CHECK (state IN ('running', 'paused', 'halted', 'completed', 'rolled-back')),
    every_seconds INTEGER NOT NULL CHECK (every_seconds >= 1),
    max_failure_rate REAL NOT NULL CHECK (max_failure_rate BETWEEN 0 AND 1),
    min_reports INTEGER NOT NULL CHECK (min_reports >= 0),
    auto_rollback INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    step_started_at INTEGER NOT NULL,
    ended_at INTEGER,
    -- The last decision, in words: why the rollout is where it is.
    reason TEXT NOT NULL
);
CREATE UNIQUE INDEX rollout_live ON rollout(channel) WHERE ended_at IS NULL;

-- The versions a live rollout's release holds that its channel's release does not (O(change)):
-- retention keeps them as it keeps a channel's.
CREATE TABLE rollout_file (
    rollout INTEGER NOT NULL REFERENCES rollout(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (rollout, path)
) WITHOUT ROWID;
CREATE INDEX rollout_file_version ON rollout_file(path, version);

-- Installs' reports, aggregated (no raw event is kept): per release and minute, the installs
-- whose first report of each kind for the release fell in that minute.
CREATE TABLE report_count (
    release TEXT NOT NULL,
    minute INTEGER NOT NULL,
    applied INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    healthy INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (release, minute)
) WITHOUT ROWID;

-- Which installs reported what for a release, so each counts once: install is the report's
-- SHA-256 of the install's id and the release (the id itself is never sent), kind one bit each
-- of applied (1), failed (2), healthy (4). Rows go with their release.
CREATE TABLE report_install (
    release TEXT NOT NULL,
    install BLOB NOT NULL,
    kinds INTEGER NOT NULL,
    PRIMARY KEY (release, install)
) WITHOUT ROWID;

-- The channel's history gains rollout events (kind 'rollout': a start, a step, a pause, a
-- resume, a halt, a rollback of the rollout), each with its serial and, in detail, what happened
-- and why. A completed rollout is the channel's move: a 'promote'. SQLite cannot change a CHECK,
-- so the table is made again.
CREATE TABLE channel_event_new (
    channel TEXT NOT NULL,
    serial INTEGER NOT NULL,
    release TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('publish', 'promote', 'rollback', 'rollout')),
    restores INTEGER,
    at INTEGER NOT NULL,
    detail TEXT,
    PRIMARY KEY (channel, serial)
) WITHOUT ROWID;
INSERT INTO channel_event_new (channel, serial, release, kind, restores, at)
    SELECT channel, serial, release, kind, restores, at FROM channel_event;
DROP TABLE channel_event;
ALTER TABLE channel_event_new RENAME TO channel_event;
