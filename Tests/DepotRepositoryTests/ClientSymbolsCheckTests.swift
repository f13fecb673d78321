import DepotTestSupport
import Foundation
import Testing

/// `scripts/lib/client-symbols`, which `scripts/test` runs: the client's package uses no API
/// newer than iOS 16 / macOS 13 (issue 58), checked here since Linux cannot compile for them.
/// Each rule as a row over a small package of its own, and the client's package as it is.
@Suite("The client's platform check")
struct ClientSymbolsCheckTests {
    static let root = RepositoryCheck.root
    static let script = root.appendingPathComponent("scripts/lib/client-symbols")

    struct Row: Sendable, CustomStringConvertible {
        var source: String
        /// What the check must print; `nil`: it passes.
        var problem: String?
        var description: String { String(source.prefix(60)) }
    }

    @Test(
        "each rule, as a row",
        arguments: [
            // What DepotClient used before issue 58, each on a line of its own.
            Row(source: "import Foundation\nimport Synchronization\n", problem: "Sources/Kind/File.swift:2: import Synchronization (needs iOS 18"),
            Row(source: "let lock = Mutex<Int>(0)\n", problem: "Mutex<"),
            Row(source: "private let received = Atomic<Int64>(0)\n", problem: "Atomic<"),
            Row(source: "let text = String(validating: bytes, as: UTF8.self)\n", problem: "String(validating:"),
            // The same, spelled another way.
            Row(source: "import struct Synchronization.Mutex\n", problem: "import struct Synchronization"),
            Row(source: "let lock = Synchronization.Mutex<Int>(0)\n", problem: "Mutex<"),
            // What an app-facing API is tempted by.
            Row(source: "@Observable final class Model {}\n", problem: "@Observable"),
            Row(source: "func states() -> some AsyncSequence<Int, Never> { stream }\n", problem: "some AsyncSequence<"),
            Row(source: "await withDiscardingTaskGroup { group in }\n", problem: "withDiscardingTaskGroup"),
            Row(source: "let a: InlineArray<4, Int> = [1, 2, 3, 4]\n", problem: "InlineArray"),
            // Standard library additions of iOS 18 and 26 a rule is tempted by (issue 58, attack).
            Row(source: "let failed = files.indices(where: { $0.failed })\n", problem: ".indices(where:"),
            Row(source: "var set = RangeSet<Int>()\n", problem: "RangeSet<"),
            Row(source: "list.removeSubranges(failed)\n", problem: ".removeSubranges("),
            Row(source: "let total: UInt128 = 0\n", problem: "UInt128"),
            Row(source: "let nanos = delay.attoseconds / 1_000_000_000\n", problem: ".attoseconds"),
            Row(source: "let name = Task.name ?? \"check\"\n", problem: "Task.name"),
            Row(source: "let count = files.count(where: { $0.failed })\nlet a = delay.components.attoseconds\n"),
            // What the client may use: its own lock, AsyncStream, comments and strings.
            Row(source: "let lock = Locked<Int>(0)\nlet (s, c) = AsyncStream.makeStream(of: Int.self)\n"),
            Row(source: "// Mutex<Int> needs iOS 18\nlet s = \"import Synchronization\"\n/* @Observable */\n"),
        ]
    )
    func rule(_ row: Row) async throws {
        try await withTemporaryDirectory { folder in
            try folder.write(Data(row.source.utf8), to: "Sources/Kind/File.swift")
            try await RepositoryCheck.expect(Self.script, over: folder, problem: row.problem)
        }
    }

    @Test("the client's package passes")
    func tree() async throws {
        let check = try await ChildProcess.run(Self.script.path, [Self.root.appendingPathComponent("Client").path])
        #expect(check.status == 0, "\(String(decoding: check.standardOutput, as: UTF8.self))")
    }
}
