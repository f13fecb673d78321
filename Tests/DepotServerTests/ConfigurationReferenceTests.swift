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

    /// A default the table states and the code does not have fails here: setting a key to its
    /// documented default must change nothing. Configurations are compared as their `dump`s' lines,
    /// sorted (a set's order is its own); the configuration's mirror lists every setting, secrets
    /// redacted (`Redacted.swift`), and ``otherValuesShow()`` fails for a key whose value it omits.
    @Test("each documented default is the code's default")
    func documentedDefaultsAreTheCodes() throws {
        let baseline = try Self.dumpLines([:])
        for key in ServerConfiguration.keys where key.defaultValue != "none" {
            let value = try #require(
                Self.documentedValue(key),
                "\(key.name): its default \(key.defaultValue) is not a value of type \(key.type.rawValue)"
            )
            let path = AbsoluteConfigKey(key.name.split(separator: ".").map(String.init))
            #expect(
                try Self.dumpLines([path: ConfigValue(value, isSecret: false)]) == baseline,
                "\(key.name): the table says \(key.defaultValue), the code's default differs"
            )
        }
    }

    /// The comparison above can fail for every key it checks: a value other than the documented
    /// default shows in the configuration read.
    @Test("a value other than the default shows, for every key with one")
    func otherValuesShow() throws {
        let baseline = try Self.dumpLines([:])
        for key in ServerConfiguration.keys where key.defaultValue != "none" && !Self.readByServe.contains(key.name) {
            let path = AbsoluteConfigKey(key.name.split(separator: ".").map(String.init))
            let others = Self.otherValues(try #require(Self.documentedValue(key)), meaning: key.meaning)
            let shown = others.contains { other in (try? Self.dumpLines([path: ConfigValue(other, isSecret: false)])).map { $0 != baseline } ?? false
            }
            #expect(shown, "\(key.name): none of \(others) changes the configuration read")
        }
    }

    /// Values near `value` but not it, for ``otherValuesShow()``: some keys refuse one of them.
    /// A string key may take only the words its meaning names (`` `depot` or `combined` ``).
    static func otherValues(_ value: ConfigContent, meaning: String) -> [ConfigContent] {
        switch value {
        case .string(let text):
            let named = meaning.matches(of: /`([^`]*)`/).map { String($0.1) }.filter { $0 != text }
            return [.string(text + "1"), .string("1" + text)] + named.map { .string($0) }
        case .int(let number): return [.int(number + 1), .int(number - 1), .int(number * 2)]
        case .double(let number): return [.double(number / 2), .double(number + 1)]
        case .bool(let flag): return [.bool(!flag)]
        case .stringArray(let texts): return [.stringArray(texts.dropLast()), .stringArray(texts + ["::2"])]
        case .intArray(let numbers): return [.intArray(numbers.dropLast())]
        default: return []
        }
    }

    /// A configuration printed (swift-service-lifecycle logs its services at `debug`) shows no
    /// secret key's value, for every key the table marks secret.
    @Test("no secret shows when the configuration is printed")
    func secretsRedacted() throws {
        for key in ServerConfiguration.keys where key.isSecret {
            let secret = "s3cret\(key.name.filter(\.isLetter))"
            let text = key.name == "access.tokens" ? "name=ci publish=beta read token=\(secret)" : secret
            let value: ConfigContent = key.type == .stringArray ? .stringArray([text]) : .string(text)
            let path = AbsoluteConfigKey(key.name.split(separator: ".").map(String.init))
            let lines = try Self.dumpLines([path: ConfigValue(value, isSecret: true)])
            #expect(lines != (try Self.dumpLines([:])), "\(key.name): setting it does not show at all")
            #expect(!lines.contains { $0.contains(secret) }, "\(key.name): its value shows")
        }
    }

    /// The configuration read from `values`, as the sorted lines of its `dump`.
    static func dumpLines(_ values: [AbsoluteConfigKey: ConfigValue]) throws -> [Substring] {
        var text = ""
        dump(try ServerConfiguration(reader: ConfigReader(provider: InMemoryProvider(values: values))), to: &text)
        return text.split(separator: "\n").sorted()
    }

    /// A documented default (`` `8080` ``, `64 MiB`, `` `127.0.0.1`, `::1` ``, `` `[1, 2, 4]` ``) as
    /// a value of its key's type, or `nil` when it is not one.
    static func documentedValue(_ key: ConfigurationKey) -> ConfigContent? {
        let literals = key.defaultValue.matches(of: /`([^`]*)`/).map { String($0.1) }
        switch key.type {
        case .stringArray: return .stringArray(literals)
        case .intArray:
            guard literals.count == 1, literals[0].hasPrefix("["), literals[0].hasSuffix("]") else { return nil }
            let numbers = literals[0].dropFirst().dropLast().split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            return .intArray(numbers)
        default: break
        }
        if literals.isEmpty, key.type == .int, let match = key.defaultValue.wholeMatch(of: /(\d+) (KiB|MiB|GiB)/), let count = Int(match.1) {
            return .int(count << ["KiB": 10, "MiB": 20, "GiB": 30][String(match.2)]!)
        }
        guard literals.count == 1 else { return nil }
        switch key.type {
        case .string: return .string(literals[0])
        case .int: return Int(literals[0]).map { .int($0) }
        case .number: return Double(literals[0]).map { .double($0) }
        case .bool: return Bool(literals[0]).map { .bool($0) }
        case .stringArray, .intArray: return nil
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
