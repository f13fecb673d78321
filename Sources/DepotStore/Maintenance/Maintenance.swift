import GRDB

/// The catalog's upkeep: retention, backup, import, rebuild and the export's reads. It owns no
/// table: each step runs the owning stores' functions, several in one transaction of the catalog.
public struct Maintenance: Sendable {
    let catalog: Catalog

    /// The catalog's pool: the store's SQL runs in its transactions.
    var database: DatabasePool { catalog.database }

    /// The upkeep of `catalog`.
    public init(_ catalog: Catalog) {
        self.catalog = catalog
    }
}
