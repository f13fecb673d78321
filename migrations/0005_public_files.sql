-- The public folder's files as the last scan found them: each file's identity (device, inode,
-- size, modification and status-change times) with the blob it was stored as. A restart serves
-- these at once and reads again only the files whose identity changed. `folder` is the public
-- folder's canonical path: a record of another folder is not this one's.
CREATE TABLE public_file (
    folder TEXT NOT NULL,
    path TEXT NOT NULL,
    sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
    md5 TEXT NOT NULL,
    size INTEGER NOT NULL CHECK (size >= 0),
    gzip_sha256 TEXT,
    gzip_size INTEGER,
    last_modified INTEGER NOT NULL,
    last_modified_strong INTEGER NOT NULL,
    device INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    modified_seconds INTEGER NOT NULL,
    modified_nanoseconds INTEGER NOT NULL,
    changed_seconds INTEGER NOT NULL,
    changed_nanoseconds INTEGER NOT NULL,
    PRIMARY KEY (folder, path)
) WITHOUT ROWID;
