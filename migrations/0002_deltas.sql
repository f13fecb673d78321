-- Patches between versions: the gzip-compressed VCDIFF (RFC 3284) that turns the content with
-- SHA-256 from_sha256 into the content with SHA-256 to_sha256, stored as the blob blob_sha256.
-- A row without a blob records that no patch was worth keeping (not clearly smaller than the
-- full download), so it is not tried again. Rows go when no version has the target content.
CREATE TABLE file_delta (
    from_sha256 TEXT NOT NULL CHECK (length(from_sha256) = 64),
    to_sha256 TEXT NOT NULL CHECK (length(to_sha256) = 64),
    blob_sha256 TEXT CHECK (blob_sha256 IS NULL OR length(blob_sha256) = 64),
    size INTEGER CHECK (size IS NULL OR size >= 0),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (from_sha256, to_sha256)
) WITHOUT ROWID;

CREATE INDEX file_delta_to ON file_delta(to_sha256);
