/// The catalog's schema migrations, in the order they are applied.
///
/// Each `NNNN_name.sql` file of this folder is embedded in the binary (`.embedInCode` in
/// Package.swift), so a deployed `depot` needs no files beside it. To change the schema, add the
/// next numbered file and list it here; never edit a file that has shipped. A test checks that
/// every file of the folder is listed. (SwiftPM names the embedded bytes after the file, with its
/// leading digit replaced by `_`: `0001_catalog.sql` becomes `_001_catalog_sql`.)
public enum CatalogMigrations {
    public static let all: [(identifier: String, sql: String)] = [
        ("0001_catalog", String(decoding: PackageResources._001_catalog_sql, as: UTF8.self)),
        ("0002_deltas", String(decoding: PackageResources._002_deltas_sql, as: UTF8.self)),
        ("0003_path_keys", String(decoding: PackageResources._003_path_keys_sql, as: UTF8.self)),
        ("0004_releases", String(decoding: PackageResources._004_releases_sql, as: UTF8.self)),
        ("0005_public_files", String(decoding: PackageResources._005_public_files_sql, as: UTF8.self)),
        ("0006_document_deltas", String(decoding: PackageResources._006_document_deltas_sql, as: UTF8.self)),
        ("0007_block_indexes", String(decoding: PackageResources._007_block_indexes_sql, as: UTF8.self)),
        ("0008_rollouts", String(decoding: PackageResources._008_rollouts_sql, as: UTF8.self)),
        ("0009_gate_reports", String(decoding: PackageResources._009_gate_reports_sql, as: UTF8.self)),
        ("0010_audit", String(decoding: PackageResources._010_audit_sql, as: UTF8.self)),
        ("0011_failure_reasons", String(decoding: PackageResources._011_failure_reasons_sql, as: UTF8.self)),
        ("0012_content_variants", String(decoding: PackageResources._012_content_variants_sql, as: UTF8.self)),
        ("0013_release_floor", String(decoding: PackageResources._013_release_floor_sql, as: UTF8.self)),
        ("0014_rollout_networks", String(decoding: PackageResources._014_rollout_networks_sql, as: UTF8.self)),
        ("0015_page_packs", String(decoding: PackageResources._015_page_packs_sql, as: UTF8.self)),
    ]
}
