-- Patches between documents that a client asks for: a release document from its parent's, and
-- each page from the page at the same place in the parent release. Made once, when the release
-- is committed, and served at /deltas/{source}/{target}; no other pair of documents gets one, so
-- an anonymous request never makes the server encode. A few hundred bytes each, kept inline.
-- full_size is the target's gzip download, which the patch saves.
CREATE TABLE document_delta (
    source TEXT NOT NULL CHECK (length(source) = 64),
    target TEXT NOT NULL CHECK (length(target) = 64),
    patch BLOB NOT NULL,
    full_size INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (source, target)
) WITHOUT ROWID;

CREATE INDEX document_delta_target ON document_delta (target);
