import GRDB

/// The releases and channels: every version of every path (`file_version`, `path_sequence`), each
/// channel's files (`channel_file`), the releases and their pages (`release`, `release_page`,
/// `release_floor`), the channels and their history (`channel`, `channel_event`) and the versions a
/// rollout holds (`rollout_file`). It owns those tables' SQL; a commit, a promote and a rollback
/// each run in one transaction of the catalog.
public struct ReleaseStore: Sendable {
    let catalog: Catalog

    /// The catalog's pool: the store's SQL runs in its transactions.
    var database: DatabasePool { catalog.database }

    /// The releases and channels of `catalog`.
    public init(_ catalog: Catalog) {
        self.catalog = catalog
    }
}
