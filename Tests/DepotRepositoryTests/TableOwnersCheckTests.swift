import DepotTestSupport
import Foundation
import Testing

/// `scripts/lib/table-owners`, which `scripts/test` runs: SQL for a catalog table only in its
/// owning store's folder (issue 59). Each rule as a row over a small package of its own (a
/// migration and one Swift file), and the package as it is.
@Suite("The tables' owners check")
struct TableOwnersCheckTests {
    static let root = RepositoryCheck.root
    static let script = root.appendingPathComponent("scripts/lib/table-owners")
    static let migration = """
        CREATE TABLE release (id TEXT PRIMARY KEY);
        CREATE TABLE rollout (id INTEGER PRIMARY KEY);
        CREATE TABLE audit_record (id INTEGER PRIMARY KEY);
        CREATE TABLE page_pack (page TEXT);
        CREATE TABLE gone (id INTEGER); -- dropped below: needs no owner
        DROP TABLE gone;
        """

    struct Row: Sendable, CustomStringConvertible {
        /// Where the Swift file goes, under Sources/.
        var file: String
        var source: String
        /// What the check must print; `nil`: it passes.
        var problem: String?
        var migration = TableOwnersCheckTests.migration
        var description: String { "\(file): \(source.prefix(50))" }
    }

    @Test(
        "each rule, as a row",
        arguments: [
            // A planted query outside its owner, in each form.
            Row(
                file: "DepotServer/Planted.swift",
                source: "let sql = \"SELECT * FROM release WHERE id = ?\"\n",
                problem: "Sources/DepotServer/Planted.swift:1: SQL for the table release outside its owner, Sources/DepotStore/Releases"
            ),
            Row(
                file: "DepotStore/Rollouts/R.swift",
                source: "let s = \"SELECT 1 FROM rollout JOIN release r ON r.id = rollout.release\"\n",
                problem: "table release"
            ),
            Row(file: "DepotStore/Releases/R.swift", source: "let s = \"INSERT INTO audit_record (id) VALUES (1)\"\n", problem: "table audit_record"),
            Row(file: "DepotStore/Audit/A.swift", source: "let s = \"UPDATE rollout SET id = 2\"\n", problem: "table rollout"),
            Row(
                file: "DepotStore/Maintenance/M.swift",
                source: "let s = \"\"\"\n    DELETE FROM page_pack\n    \"\"\"\n",
                problem: "M.swift:1: SQL for the table page_pack"
            ),
            Row(file: "DepotStore/Rollouts/R.swift", source: "let s = \"SELECT \\(columns) FROM release\"\n", problem: "table release"),
            // The same inside the owner; a table the migrations do not make; prose and comments.
            Row(file: "DepotStore/Releases/R.swift", source: "let s = \"SELECT * FROM release JOIN release AS b\"\n"),
            Row(file: "DepotStore/BlobIndex/B.swift", source: "let s = \"INSERT OR REPLACE INTO page_pack (page) VALUES (?)\"\n"),
            Row(file: "DepotServer/Example.swift", source: "let s = \"SELECT body FROM item\"\n"),
            Row(file: "DepotServer/Prose.swift", source: "// SELECT * FROM release\n/* UPDATE rollout */\nlet s = \"rolled back from release 3\"\n"),
            // A table a migration makes and no store owns.
            Row(
                file: "DepotServer/Empty.swift",
                source: "let a = 1\n",
                problem: "the table gadget has no owner",
                migration: "CREATE TABLE gadget (id INTEGER);\n"
            ),
        ]
    )
    func rule(_ row: Row) async throws {
        try await withTemporaryDirectory { folder in
            try folder.write(Data(row.migration.utf8), to: "migrations/0001_tables.sql")
            try folder.write(Data(row.source.utf8), to: "Sources/\(row.file)")
            try await RepositoryCheck.expect(Self.script, over: folder, problem: row.problem)
        }
    }

    @Test("the package passes, with no exception listed")
    func tree() async throws {
        let check = try await ChildProcess.run(Self.script.path, [Self.root.path])
        #expect(check.status == 0, "\(String(decoding: check.standardOutput, as: UTF8.self))")
        let exceptions = Self.root.appendingPathComponent("scripts/lib/table-owners-exceptions")
        #expect(!FileManager.default.fileExists(atPath: exceptions.path))
    }
}
