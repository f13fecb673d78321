extension DepotClient.Configuration {
    /// The bytes a download or sync of a release may transfer, if bounded: a critical one's
    /// (``criticalMaximumTransferBytes``, else ``maximumTransferBytes``), or any other's.
    func transferBudget(critical: Bool) -> Int64? {
        critical ? criticalMaximumTransferBytes ?? maximumTransferBytes : maximumTransferBytes
    }
}
