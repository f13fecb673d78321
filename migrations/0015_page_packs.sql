-- The packs of release pages (/packs/{page} and /packs/{page}.br, issue 57), made once, when a
-- client first asks for one, and kept as a blob, so that no later request makes one again and
-- a restart loses none. A row whose blob_sha256 is NULL records a brotli pack that would save
-- nothing: answered 404 and never made again. Rows go with their page (retention removes the
-- pages no kept release lists); their blobs then go with collection, which keeps every blob a
-- row names.
CREATE TABLE page_pack (
    page TEXT NOT NULL REFERENCES release_page(sha256) ON DELETE CASCADE,
    coding TEXT NOT NULL CHECK (coding IN ('identity', 'br')),
    blob_sha256 TEXT CHECK (blob_sha256 IS NULL OR length(blob_sha256) = 64),
    size INTEGER CHECK (size IS NULL OR size >= 0),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (page, coding)
) WITHOUT ROWID;
