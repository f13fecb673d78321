import DepotTestSupport
import Foundation
import Testing

/// `scripts/lib/file-operations`, which `scripts/test` runs: every file operation on a folder
/// Depot manages goes through DepotFiles (issue 57). Each rule as a row over a small tree of its
/// own, and the tree as it is, which must pass.
@Suite("The file-operation check")
struct FileOperationsCheckTests {
    static let root = RepositoryCheck.root
    static let script = root.appendingPathComponent("scripts/lib/file-operations")
    static let exceptions = "scripts/lib/file-operations-exceptions"

    struct Row: Sendable, CustomStringConvertible {
        var file = "Sources/DepotStore/Planted.swift"
        var source: String
        var exceptions = ""
        /// What the check must print; `nil`: it passes.
        var problem: String?
        var description: String { "\(file): \(source.prefix(60))" }
    }

    static let plant = "try? FileManager.default.removeItem(atPath: \"/tmp/x\")\n"

    @Test(
        "each rule, as a row",
        arguments: [
            // The issue's own plant, and the message that says what to do.
            Row(source: "let a = 1\n" + plant, problem: "Sources/DepotStore/Planted.swift:2: FileManager outside DepotFiles: use ContainedFolder"),
            // Listed with its reason: allowed.
            Row(source: plant, exceptions: "Sources/DepotStore/Planted.swift:FileManager  a reason\n"),
            // Listed without a reason, or listed and not found (the list cannot rot).
            Row(source: plant, exceptions: "Sources/DepotStore/Planted.swift:FileManager\n", problem: "has no reason"),
            Row(source: "let a = 1\n", exceptions: "Sources/DepotStore/Planted.swift:FileManager  a reason\n", problem: "not found there any more"),
            // DepotFiles and the test-only targets may.
            Row(file: "Client/Sources/DepotFiles/Planted.swift", source: plant),
            Row(file: "Sources/DepotTestSupport/Planted.swift", source: plant),
            // C calls on paths, bare, qualified, over lines; the other Foundation forms.
            Row(source: "_ = Glibc.unlink(path)\n", problem: "Planted.swift:1: unlink( outside DepotFiles"),
            Row(source: "let d = open(\n    path, O_RDONLY)\n", problem: "Planted.swift:1: open( outside DepotFiles"),
            Row(source: "_ = chmod(path, 0o600)\n", problem: "chmod( outside DepotFiles"),
            Row(source: "let d = try Data(contentsOf: url)\n", problem: "Data(contentsOf:) outside DepotFiles"),
            Row(source: "try bytes.write(to: url)\n", problem: "write(to:) outside DepotFiles"),
            Row(source: "try await fileSystem.removeItem(at: path)\n", problem: "FileSystem.removeItem outside DepotFiles"),
            Row(source: "let s = \"\\(FileManager.default.currentDirectoryPath)\"\n", problem: "FileManager outside DepotFiles"),
            // The adversarial pass's bypasses (issue 57, cause 8): each slipped past before.
            Row(source: "var u = url\ntry u.setResourceValues(values)\n", problem: "Planted.swift:2: setResourceValues outside DepotFiles"),
            Row(source: "let d = try Data.init(contentsOf: url)\n", problem: "Data(contentsOf:) outside DepotFiles"),
            Row(source: "let s = try String.init(contentsOfFile: p)\n", problem: "String(contentsOfFile:) outside DepotFiles"),
            Row(source: "_ = mkfifo(p, 0o600)\n", problem: "mkfifo( outside DepotFiles"),
            Row(source: "_ = utimes(p, nil)\n", problem: "utimes( outside DepotFiles"),
            Row(source: "_ = utimensat(AT_FDCWD, p, nil, 0)\n", problem: "utimensat( outside DepotFiles"),
            Row(source: "_ = lchown(p, 0, 0)\n", problem: "lchown( outside DepotFiles"),
            Row(source: "_ = renameat2(AT_FDCWD, a, AT_FDCWD, b, 0)\n", problem: "renameat2( outside DepotFiles"),
            Row(source: "_ = mkstemp(&template)\n", problem: "mkstemp( outside DepotFiles"),
            Row(source: "_ = freopen(p, \"w\", stdout)\n", problem: "freopen( outside DepotFiles"),
            Row(source: "let x = 1;_ = Glibc.remove(p)\n", problem: "remove( outside DepotFiles"),
            Row(source: "_ = posix_spawn(&pid, tool, nil, nil, argv, nil)\n", problem: "posix_spawn( outside DepotFiles"),
            Row(
                source: "let rm = Process()\nrm.executableURL = URL(fileURLWithPath: tool)\n",
                problem: "Planted.swift:1: Process outside DepotFiles"
            ),
            Row(source: "_ = try await FileSystem.shared.createTemporaryDirectory(template: p)\n", problem: "FileSystem.createDirectory outside"),
            Row(
                source: "let h = try NIOFileHandle(\n    path: p, mode: .write, flags: .allowFileCreation())\n",
                problem: "NIOFileHandle(mode: .write) outside"
            ),
            Row(
                source: "let h = try await io.openFile(_deprecatedPath: p, mode: .write, eventLoop: l)\n",
                problem: "NIOFileHandle(mode: .write) outside"
            ),
            // Reads NIO serves blobs with, a type's own `remove(`, and ProcessInfo stay allowed.
            Row(source: "let h = try NIOFileHandle(_deprecatedPath: p)\nremove(path)\nlet e = ProcessInfo.processInfo.environment\n"),
            // Not file operations on paths: methods, declarations, labelled Swift calls, comments,
            // doc comments and strings.
            Row(source: "try folder.rename(\"a\", to: \"b\")\ntry folder.open(\"a\", mode: .read)\nfunc open(_ a: Int) {}\n"),
            Row(source: "try link(name, from: a, to: b)\n"),
            Row(source: "// FileManager.default.removeItem(atPath: p)\n/// unlink(p)\n/* rename(a, b) */\nlet s = \"open(p) FileManager\"\n"),
        ]
    )
    func rule(_ row: Row) async throws {
        try await withTemporaryDirectory { folder in
            try folder.write(Data(row.source.utf8), to: row.file)
            try folder.write(Data(row.exceptions.utf8), to: Self.exceptions)
            try await RepositoryCheck.expect(Self.script, over: folder, problem: row.problem)
        }
    }

    @Test("the tree passes, with only the exceptions listed, each with its reason")
    func tree() async throws {
        let check = try await ChildProcess.run(Self.script.path, [], in: Self.root)
        #expect(check.status == 0, "\(String(decoding: check.standardOutput, as: UTF8.self))")
        let exceptions = try String(contentsOf: Self.root.appendingPathComponent(Self.exceptions), encoding: .utf8)
        for line in exceptions.split(separator: "\n") where !line.hasPrefix("#") {
            let reason = line.split(separator: " ", maxSplits: 1).dropFirst().first?.trimmingCharacters(in: .whitespaces) ?? ""
            #expect(reason.count > 10, "an exception without its reason: \(line)")
        }
    }
}
