-- The catalog: every published version of every logical path, the live version of each path,
-- and the manifest clients poll. Times are whole seconds since 1970-01-01 UTC.

CREATE TABLE file_version (
    path TEXT NOT NULL,
    version INTEGER NOT NULL CHECK (version >= 1),
    size INTEGER NOT NULL CHECK (size >= 0),
    sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
    md5 TEXT NOT NULL CHECK (length(md5) = 32),
    content_type TEXT NOT NULL,
    published_at INTEGER NOT NULL,
    -- Whether published_at is a strong validator: no earlier version of the path shares its second.
    last_modified_is_strong INTEGER NOT NULL,
    gzip_size INTEGER,
    gzip_sha256 TEXT,
    -- Set when retention or an unpublish retires the version; the row and its blob are removed
    -- once a grace period has passed, so downloads already under way can finish.
    retired_at INTEGER,
    PRIMARY KEY (path, version)
) WITHOUT ROWID;

CREATE INDEX file_version_sha256 ON file_version(sha256);

-- The version of each path that is served; a path without a row here is not published.
CREATE TABLE live_file (
    path TEXT PRIMARY KEY NOT NULL,
    version INTEGER NOT NULL,
    FOREIGN KEY (path, version) REFERENCES file_version(path, version)
) WITHOUT ROWID;

-- The last version number given to each path, so numbers keep growing after old rows are removed.
CREATE TABLE path_sequence (
    path TEXT PRIMARY KEY NOT NULL,
    last_version INTEGER NOT NULL
) WITHOUT ROWID;

-- The manifest, rebuilt in the same transaction as every change to live_file.
CREATE TABLE manifest (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    serial INTEGER NOT NULL,
    document BLOB NOT NULL,
    sha256 TEXT NOT NULL,
    generated_at INTEGER NOT NULL
);
