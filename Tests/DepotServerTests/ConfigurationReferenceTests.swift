import Configuration
import DepotServer
import Foundation
import Synchronization
import Testing

/// The configuration's one key table, `ServerConfiguration.keys`, against what reads it and what
/// documents it: `ServerConfiguration(reader:)` reads exactly its keys, each as its type, and
/// `docs/configuration.md`'s table is made from it. Before this table, the reference and the
/// reader's own list differed by nine keys.
@Suite("Configuration reference")
struct ConfigurationReferenceTests {
    static let reference = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/configuration.md")
    static let start = "<!-- The table below is made from ServerConfiguration.keys: see the end of this file. -->"
    static let end = "<!-- The end of the table made from ServerConfiguration.keys. -->"
    /// Read by the `depot serve` command itself, before the configuration.
    static let readByServe: Set<String> = ["log.level"]
    /// Read only to refuse them, naming the key that replaced each.
    static let retired: Set<String> = ["deltas.previousVersions"]

    /// Every key a reader was asked for, with the types it was asked as.
    final class Recorder: AccessReporter {
        let reads = Mutex<[String: Set<ConfigType>]>([:])
        func report(_ event: AccessEvent) {
            let key = event.metadata.key.components.joined(separator: ".")
            reads.withLock { _ = $0[key, default: []].insert(event.metadata.valueType) }
        }
    }

    @Test("each key is listed once")
    func listedOnce() {
        let names = ServerConfiguration.keys.map(\.name)
        #expect(names.count == Set(names).count, "listed twice: \(Dictionary(grouping: names) { $0 }.filter { $1.count > 1 }.keys.sorted())")
    }

    /// A key read and not listed (or listed and never read) fails here, as does a key listed as
    /// an int and read as a string.
    @Test("ServerConfiguration(reader:) reads exactly the listed keys, each as its listed type")
    func readerReadsTheTable() throws {
        let recorder = Recorder()
        _ = try ServerConfiguration(reader: ConfigReader(provider: InMemoryProvider(values: [:]), accessReporter: recorder))
        let reads = recorder.reads.withLock { $0 }
        let listed = Dictionary(uniqueKeysWithValues: ServerConfiguration.keys.map { ($0.name, $0) })
        let unlisted = Set(reads.keys).subtracting(listed.keys).subtracting(Self.retired).sorted()
        let unread = Set(listed.keys).subtracting(reads.keys).subtracting(Self.readByServe).sorted()
        #expect(unlisted.isEmpty, "read by ServerConfiguration(reader:) but not in ServerConfiguration.keys: \(unlisted)")
        #expect(unread.isEmpty, "in ServerConfiguration.keys but never read: \(unread)")
        for (name, types) in reads {
            guard let key = listed[name] else { continue }
            #expect(Self.readTypes(key.type) == types, "\(name) is listed as \(key.type.rawValue) and read as \(types.map(\.rawValue).sorted())")
        }
    }

    /// The reference's table is made from the code's: set `DEPOT_WRITE_CONFIGURATION_REFERENCE=1`
    /// to write it after a change to `ServerConfiguration.keys`.
    @Test("docs/configuration.md's table is ServerConfiguration.keys")
    func referenceIsTheTable() throws {
        let text = try String(contentsOf: Self.reference, encoding: .utf8)
        let table = ConfigurationKey.markdownTable(ServerConfiguration.keys)
        let start = try #require(text.range(of: Self.start + "\n"), "docs/configuration.md lacks the line \(Self.start)")
        let end = try #require(text.range(of: "\n" + Self.end, range: start.upperBound..<text.endIndex), "docs/configuration.md lacks \(Self.end)")
        let written = String(text[start.upperBound..<end.lowerBound])
        if ProcessInfo.processInfo.environment["DEPOT_WRITE_CONFIGURATION_REFERENCE"] == "1", written != table {
            try (text[..<start.upperBound] + table + text[end.lowerBound...]).write(to: Self.reference, atomically: true, encoding: .utf8)
            return
        }
        guard written != table else { return }
        let rows = Set(written.split(separator: "\n").map(String.init))
        let wanted = Set(table.split(separator: "\n").map(String.init))
        Issue.record(
            """
            docs/configuration.md's table is not ServerConfiguration.keys' (DEPOT_WRITE_CONFIGURATION_REFERENCE=1 swift test \
            --filter ConfigurationReferenceTests writes it). Only in the document: \(rows.subtracting(wanted).sorted()). \
            Only in the code: \(wanted.subtracting(rows).sorted())\(rows == wanted ? " The same rows, in another order." : "")
            """
        )
    }

    /// What a reader asks for a key of this type: a number is read as a double, then as an int
    /// (JSON's `2` and `2.5`).
    static func readTypes(_ type: ConfigurationKey.ValueType) -> Set<ConfigType> {
        switch type {
        case .string: [.string]
        case .int: [.int]
        case .number: [.double, .int]
        case .bool: [.bool]
        case .stringArray: [.stringArray]
        case .intArray: [.intArray]
        }
    }
}
