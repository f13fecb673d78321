/// The SQL of the release tables (`release`, `release_page`, `release_floor`, `channel`,
/// `channel_event`, `rollout_file`) that other stores and ``Maintenance`` run inside their own
/// transaction: ``ReleaseStore``'s functions taking GRDB's `Database`. ``ReleaseWriter`` writes
/// a release and moves a channel; ``VersionTables`` holds the versions' rows.
enum ReleaseTables {}
