import DepotTestSupport
import Foundation
import Testing

/// `scripts/lib/sizes.py check`, the file and function limits `scripts/test` holds DepotStore,
/// DepotClient and DepotServer to: each rule as a row that must fail, and the tree as it is,
/// which must pass.
@Suite("The size limits' check")
struct SizesCheckTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = root.appendingPathComponent("scripts/lib/sizes.py")

    /// A Swift function of `lines` lines in all, whose body holds braces in strings and comments
    /// that must not count.
    static func function(named name: String, lines: Int) -> String {
        let body = (0..<(lines - 2)).map { $0 % 2 == 0 ? "    let s\($0) = \"}}{\" // }" : "    _ = s\($0 - 1)" }
        return (["func \(name)() {"] + body + ["}"]).joined(separator: "\n") + "\n"
    }

    @Test(
        "each limit, as a row: over it fails, at it passes",
        arguments: [
            (String(repeating: "let a = 1\n", count: 301), "301 lines, over 300"),
            (String(repeating: "let a = 1\n", count: 300), nil),
            (function(named: "long", lines: 61), "long is 61 lines, over 60"),
            (function(named: "fits", lines: 60), nil),
        ] as [(String, String?)]
    )
    func limit(source: String, problem: String?) async throws {
        try await withTemporaryDirectory { folder in
            try folder.write(Data(source.utf8), to: "Sources/Kind/File.swift")
            let check = try await ChildProcess.run(Self.script.path, ["check", folder.appendingPathComponent("Sources/Kind").path])
            let said = String(decoding: check.standardOutput, as: UTF8.self)
            #expect(check.status == (problem == nil ? 0 : 1), "\(said)")
            if let problem { #expect(said.contains(problem), "\(said)") }
        }
    }

    @Test("the tree keeps the limits, with only the exceptions listed and their reasons")
    func tree() async throws {
        let targets = ["Sources/DepotStore", "Client/Sources/DepotClient", "Sources/DepotServer"]
        let check = try await ChildProcess.run(Self.script.path, ["check"] + targets, in: Self.root)
        #expect(check.status == 0, "\(String(decoding: check.standardOutput, as: UTF8.self))")
        let exceptions = try String(contentsOf: Self.root.appendingPathComponent("scripts/lib/sizes-exceptions"), encoding: .utf8)
        for line in exceptions.split(separator: "\n") where !line.hasPrefix("#") {
            #expect(line.split(separator: "#", maxSplits: 1).last.map { $0.count > 10 } == true, "an exception without its reason: \(line)")
        }
    }
}
