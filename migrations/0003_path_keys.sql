-- The collision key of each live path: its Unicode NFC form, lower-cased (PortablePath in
-- Sources/DepotManifest). Two live paths with one key would be one file on a client's
-- normalization- or case-insensitive file system, so a publish looks its key up here and refuses
-- a collision. The keys are computed by Depot, not SQL: rows of catalogs older than this
-- migration are filled in when the catalog opens.
CREATE TABLE live_path_key (
    path TEXT PRIMARY KEY NOT NULL REFERENCES live_file(path) ON DELETE CASCADE,
    key TEXT NOT NULL
) WITHOUT ROWID;

CREATE INDEX live_path_key_key ON live_path_key(key);
