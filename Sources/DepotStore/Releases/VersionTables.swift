/// The SQL of the versions' tables (`file_version`, `path_sequence`, `channel_file`) run inside a
/// caller's transaction: a commit's paths and versions, their retirement, and the lookups other
/// stores make of them (``BlobIndex``'s patch sources and blob records).
enum VersionTables {}
