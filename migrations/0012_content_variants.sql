-- Brotli and zstd variants of a content (issue 45), each stored as a blob under its own
-- SHA-256 and served as /blobs/{sha256}.br and .zst. A row whose variant_sha256 is NULL
-- records a variant that was made and not kept (not smaller than the content's gzip variant
-- and the content by the configured margin), so that it is not made again. Rows go when no
-- version has the content.
CREATE TABLE content_variant (
    sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
    coding TEXT NOT NULL CHECK (coding IN ('br', 'zstd')),
    variant_sha256 TEXT CHECK (variant_sha256 IS NULL OR length(variant_sha256) = 64),
    size INTEGER CHECK (size IS NULL OR size >= 0),
    -- The settings it was made with (for example 'q11w24', 'l19w27'), for the record: a variant
    -- is never made again with other settings, since releases list it and its URL is immutable.
    settings TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (sha256, coding)
) WITHOUT ROWID;
