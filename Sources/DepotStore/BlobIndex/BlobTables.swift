/// The SQL of ``BlobIndex``'s tables that other stores and ``Maintenance`` run inside their own
/// transaction (its functions taking GRDB's `Database`): what collection spares and forgets,
/// an import's patches, variants and block indexes, the export's patches.
enum BlobTables {}
