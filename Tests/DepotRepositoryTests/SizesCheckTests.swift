import DepotTestSupport
import Foundation
import Testing

/// `scripts/lib/sizes.py check`, the file and function limits and the methods-per-type budget
/// `scripts/test` holds DepotStore, DepotClient, DepotServer and DepotFiles to: each rule as a
/// row that must fail, and the tree as it is, which must pass.
@Suite("The size limits' check")
struct SizesCheckTests {
    static let root = RepositoryCheck.root
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

    /// A type `name` with `body` methods in its body (an `init` among them) and, if any,
    /// `extension` static ones in an extension of it.
    static func type(_ name: String, body: Int, extension statics: Int = 0, kind: String = "struct") -> String {
        let methods = (0..<body).map { $0 == 0 ? "    init() {}" : "    func m\($0)() { let s = \"func x() {}\" }" }
        let more = (0..<statics).map { "    static func s\($0)(in db: Int) -> Int { db }" }
        let declaration = "\(kind) \(name) {\n" + methods.joined(separator: "\n") + "\n}\n"
        return statics == 0 ? declaration : declaration + "\nextension \(name) {\n" + more.joined(separator: "\n") + "\n}\n"
    }

    @Test(
        "the methods-per-type budget, as a row: over it fails, its body and extensions counted, nested types and protocols apart",
        arguments: [
            (type("Catalog", body: 26), "Catalog has 26 methods, over 25"),
            (type("Catalog", body: 25), nil),
            (type("Catalog", body: 13, extension: 13), "Catalog has 26 methods, over 25"),
            (type("Store", body: 1, extension: 25, kind: "final class"), "Store has 26 methods, over 25"),
            ("struct Outer {\n" + type("Inner", body: 20) + "}\n" + type("Outer", body: 20), nil),
            (type("Requirements", body: 30, kind: "protocol").replacingOccurrences(of: "init() {}", with: "init()"), nil),
        ] as [(String, String?)]
    )
    func methodBudget(source: String, problem: String?) async throws {
        try await limit(source: source, problem: problem)
    }

    @Test("the tree keeps the limits, with only the exceptions listed and their reasons")
    func tree() async throws {
        let targets = ["Sources/DepotStore", "Client/Sources/DepotClient", "Sources/DepotServer", "Client/Sources/DepotFiles"]
        let check = try await ChildProcess.run(Self.script.path, ["check"] + targets, in: Self.root)
        #expect(check.status == 0, "\(String(decoding: check.standardOutput, as: UTF8.self))")
        let exceptions = try String(contentsOf: Self.root.appendingPathComponent("scripts/lib/sizes-exceptions"), encoding: .utf8)
        for line in exceptions.split(separator: "\n") where !line.hasPrefix("#") {
            #expect(line.split(separator: "#", maxSplits: 1).last.map { $0.count > 10 } == true, "an exception without its reason: \(line)")
        }
    }
}
