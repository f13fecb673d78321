-- Block indexes: for a content (sha256) of at least deltas.blockIndexMinimumBytes, its block
-- index (served as /blobs/{sha256}.blocks) and its blocks each deflated on its own (served as
-- /blobs/{sha256}.zblocks), both stored as blobs. A client whose copy of a file is no
-- published version fetches only the blocks it lacks. Rows go when no version has the content.
CREATE TABLE block_index (
    sha256 TEXT PRIMARY KEY CHECK (length(sha256) = 64),
    index_sha256 TEXT NOT NULL CHECK (length(index_sha256) = 64),
    index_size INTEGER NOT NULL CHECK (index_size >= 0),
    packed_sha256 TEXT NOT NULL CHECK (length(packed_sha256) = 64),
    packed_size INTEGER NOT NULL CHECK (packed_size >= 0),
    created_at INTEGER NOT NULL
) WITHOUT ROWID;
