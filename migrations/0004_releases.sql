-- Releases and channels (docs/releases.md). A release is every file clients hold at once; a
-- channel points to one release. live_file and live_path_key become the rows of the default
-- channel, stable, in channel_file.

-- A release as served at /releases/{id}: id is the SHA-256 of document, the root that lists the
-- SHA-256 of each page. number counts releases in the order they were made.
CREATE TABLE release (
    id TEXT PRIMARY KEY NOT NULL CHECK (length(id) = 64),
    number INTEGER NOT NULL UNIQUE CHECK (number >= 1),
    parent TEXT,
    -- The channel it was published to.
    channel TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    files INTEGER NOT NULL CHECK (files >= 0),
    bytes INTEGER NOT NULL CHECK (bytes >= 0),
    page_bits INTEGER NOT NULL CHECK (page_bits BETWEEN 0 AND 16),
    document BLOB NOT NULL,
    -- Set when retention drops the release; the row goes after the grace period.
    retired_at INTEGER
);

-- The pages of every release, content-addressed: releases share the pages they did not change.
CREATE TABLE release_page (
    sha256 TEXT PRIMARY KEY NOT NULL CHECK (length(sha256) = 64),
    document BLOB NOT NULL,
    created_at INTEGER NOT NULL
);

-- Where each channel points; serial is the serial of its newest event.
CREATE TABLE channel (
    name TEXT PRIMARY KEY NOT NULL,
    release TEXT NOT NULL REFERENCES release(id),
    serial INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;

-- Every move of a channel. kind is publish, promote or rollback; a rollback names the serial of
-- the event whose release it restored, so a second rollback goes one further back.
CREATE TABLE channel_event (
    channel TEXT NOT NULL,
    serial INTEGER NOT NULL,
    release TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('publish', 'promote', 'rollback')),
    restores INTEGER,
    at INTEGER NOT NULL,
    PRIMARY KEY (channel, serial)
) WITHOUT ROWID;

-- The files of each channel's release. key is the path's collision key (PortablePath), bucket
-- its 32-bit page hash (ReleasePaging), both computed by Depot: NULL until the catalog opens.
CREATE TABLE channel_file (
    channel TEXT NOT NULL,
    path TEXT NOT NULL,
    version INTEGER NOT NULL,
    key TEXT,
    bucket INTEGER,
    PRIMARY KEY (channel, path),
    FOREIGN KEY (path, version) REFERENCES file_version(path, version)
) WITHOUT ROWID;

CREATE INDEX channel_file_key ON channel_file(channel, key);
CREATE INDEX channel_file_bucket ON channel_file(channel, bucket);
CREATE INDEX channel_file_version ON channel_file(path, version);

-- Blobs uploaded by PUT /v1/blobs/{sha256} with their digests, so a release commit can name them
-- before any version does. Rows whose blob collection removed are deleted with it.
CREATE TABLE uploaded_blob (
    sha256 TEXT PRIMARY KEY NOT NULL CHECK (length(sha256) = 64),
    size INTEGER NOT NULL CHECK (size >= 0),
    md5 TEXT NOT NULL CHECK (length(md5) = 32),
    gzip_size INTEGER,
    gzip_sha256 TEXT,
    uploaded_at INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO channel_file (channel, path, version) SELECT 'stable', path, version FROM live_file;
DROP TABLE live_path_key;
DROP TABLE live_file;
-- The manifest listed every live file and was rebuilt at every change: the channel documents,
-- releases and pages replace it.
DROP TABLE manifest;
