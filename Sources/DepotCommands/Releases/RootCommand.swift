import ArgumentParser
import Crypto
import DepotHTTP
import DepotManifest
import DepotServer
import DepotSigning
import Foundation

extension Depot {
    /// `depot root init|sign|rotate|verify`: the root of trust of signed channels, made and
    /// signed where the root keys are, never on the server.
    struct Root: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make and sign the root documents that say which keys sign channel documents.",
            discussion: """
                A root lists the channel keys and how many of them must sign (k of n), and the root keys that \
                sign the next root. Run these where the root keys are kept, not on the server: the server only \
                serves the signed roots (channels.rootDirectory) and holds channel keys. Apps ship root 1 \
                (DepotClient's trustedRoot, depot sync --trusted-root) and follow the chain to the newest.
                """,
            subcommands: [Initialize.self, Sign.self, Rotate.self, Verify.self]
        )

        /// Writes `root` as the JSON the server serves.
        static func write(_ root: RootDocument, to file: PathArgument, in environment: CommandEnvironment) throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            do {
                try (try encoder.encode(root) + Data("\n".utf8)).write(to: file.url(in: environment), options: .atomic)
            } catch {
                throw CommandFailure("cannot write \(file): \(error.localizedDescription)")
            }
        }

        /// Reads a root document.
        static func read(_ file: PathArgument, in environment: CommandEnvironment) throws -> RootDocument {
            guard let data = FileManager.default.contents(atPath: file.path(in: environment)) else { throw CommandFailure("cannot read \(file)") }
            guard let root = try? JSONDecoder().decode(RootDocument.self, from: data) else { throw CommandFailure("\(file) is not a root document") }
            return root
        }

        /// The expiry `days` from now, as a root says it.
        static func expiry(days: Int) -> String {
            HTTPDate(secondsSince1970: Int64(Date().timeIntervalSince1970) + Int64(days) * 86_400).imfFixdate
        }

        /// Adds public keys (base64) to `keys`, returning their ids.
        static func add(_ publicKeys: [String], to keys: inout [String: String]) throws -> [String] {
            try publicKeys.map { key in
                guard let id = Ed25519.keyID(base64: key) else { throw CommandFailure("not an Ed25519 public key (base64 of 32 bytes): \(key)") }
                keys[id] = key.trimmingCharacters(in: .whitespaces)
                return id
            }
        }
    }
}

extension Depot.Root {
    /// `depot root init`: root 1, unsigned.
    struct Initialize: DepotCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Write root 1, unsigned: then sign it with a threshold of its root keys (depot root sign)."
        )

        @Option(help: "Where to write it (serve it as 1.root.json).")
        var out: PathArgument

        @Option(name: .customLong("root-key"), help: "A public key (base64, from depot keygen) that signs the next root (repeatable).")
        var rootKeys: [String]

        @Option(help: "How many root keys must sign a root.")
        var rootThreshold = 1

        @Option(name: .customLong("channel-key"), help: "A public key that signs channel documents (repeatable).")
        var channelKeys: [String]

        @Option(help: "How many channel keys must sign a channel document.")
        var channelThreshold = 1

        @Option(help: "Days until the root expires.")
        var expiresDays = 365

        func validate() throws {
            guard expiresDays > 0 else { throw ValidationError("--expires-days takes a positive number") }
        }

        func run(in environment: CommandEnvironment) async throws {
            try await reportingFailures(in: environment) {
                var keys: [String: String] = [:]
                let root = try Depot.Root.add(rootKeys, to: &keys)
                let channels = try Depot.Root.add(channelKeys, to: &keys)
                let document = RootDocument(
                    version: 1,
                    expires: Depot.Root.expiry(days: expiresDays),
                    keys: keys,
                    root: .init(keyIDs: Array(Set(root)).sorted(), threshold: rootThreshold),
                    channels: .init(keyIDs: Array(Set(channels)).sorted(), threshold: channelThreshold)
                )
                do { try document.checkShape(keyID: Ed25519.keyID(base64:)) } catch { throw CommandFailure("\(error)") }
                try Depot.Root.write(document, to: out, in: environment)
                environment.print("root 1 written to \(out): sign it with \(rootThreshold) of its root keys")
            }
        }
    }

    /// `depot root sign`: adds one key's signature.
    struct Sign: DepotCommand {
        static let configuration = CommandConfiguration(abstract: "Sign a root with one private key (a root key of it or of the root before).")

        @Argument(help: "The root document.")
        var file: PathArgument

        @Option(help: "The private key file (from depot keygen).")
        var key: PathArgument

        func run(in environment: CommandEnvironment) async throws {
            try await reportingFailures(in: environment) {
                var root = try Depot.Root.read(file, in: environment)
                let privateKey: Curve25519.Signing.PrivateKey
                do { privateKey = try ChannelSigner.readKey(file: key.path(in: environment)) } catch { throw CommandFailure("\(error)") }
                let signature = try Ed25519.sign(root.signedText, with: privateKey)
                root.signatures.removeAll { $0.keyID == signature.keyID }
                root.signatures.append(signature)
                root.signatures.sort { $0.keyID < $1.keyID }
                try Depot.Root.write(root, to: file, in: environment)
                environment.print(
                    "root \(root.version) signed by \(signature.keyID) (\(root.signatures.count) signature\(root.signatures.count == 1 ? "" : "s"))"
                )
            }
        }
    }

    /// `depot root rotate`: the next root, unsigned.
    struct Rotate: DepotCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the root after another, with keys added or removed: sign it with a threshold of both roots' root keys."
        )

        @Option(help: "The current newest root.")
        var from: PathArgument

        @Option(help: "Where to write the next one (serve it as N.root.json).")
        var out: PathArgument

        @Option(name: .customLong("add-root-key"), help: "A public key to add as a root key (repeatable).")
        var addRootKeys: [String] = []

        @Option(name: .customLong("remove-root-key"), help: "The id of a root key to remove (repeatable).")
        var removeRootKeys: [String] = []

        @Option(help: "How many root keys must sign the root after this one.")
        var rootThreshold: Int?

        @Option(name: .customLong("add-channel-key"), help: "A public key to add as a channel key (repeatable).")
        var addChannelKeys: [String] = []

        @Option(name: .customLong("remove-channel-key"), help: "The id of a channel key to remove: a lost or leaked one (repeatable).")
        var removeChannelKeys: [String] = []

        @Option(help: "How many channel keys must sign a channel document.")
        var channelThreshold: Int?

        @Option(help: "Days until the new root expires.")
        var expiresDays = 365

        func run(in environment: CommandEnvironment) async throws {
            try await reportingFailures(in: environment) {
                let current = try Depot.Root.read(from, in: environment)
                // A removal that names no key of its role would write a root that still trusts
                // the key meant to go (its base64 given for its id, or a typo).
                for (id, role, name) in removeRootKeys.map({ ($0, current.root, "root") })
                    + removeChannelKeys.map({ ($0, current.channels, "channel") })
                where !role.keyIDs.contains(id) {
                    let hint = Ed25519.keyID(base64: id).map { " (that is a key; its id is \($0))" } ?? ""
                    throw CommandFailure("--remove-\(name)-key \(id) names no \(name) key of root \(current.version)\(hint)")
                }
                var keys = current.keys
                var root = Set(current.root.keyIDs).union(try Depot.Root.add(addRootKeys, to: &keys)).subtracting(removeRootKeys)
                var channels = Set(current.channels.keyIDs).union(try Depot.Root.add(addChannelKeys, to: &keys)).subtracting(removeChannelKeys)
                root.formIntersection(keys.keys)
                channels.formIntersection(keys.keys)
                let used = root.union(channels)
                let next = RootDocument(
                    version: current.version + 1,
                    expires: Depot.Root.expiry(days: expiresDays),
                    keys: keys.filter { used.contains($0.key) },
                    root: .init(keyIDs: root.sorted(), threshold: rootThreshold ?? min(current.root.threshold, root.count)),
                    channels: .init(keyIDs: channels.sorted(), threshold: channelThreshold ?? min(current.channels.threshold, channels.count))
                )
                do { try next.checkShape(keyID: Ed25519.keyID(base64:)) } catch { throw CommandFailure("\(error)") }
                try Depot.Root.write(next, to: out, in: environment)
                environment.print(
                    "root \(next.version) written to \(out): sign it with \(current.root.threshold) of root \(current.version)'s root keys "
                        + "and \(next.root.threshold) of its own"
                )
            }
        }
    }

    /// `depot root verify`: checks a chain as a client would.
    struct Verify: DepotCommand {
        static let configuration = CommandConfiguration(abstract: "Check a chain of roots, oldest first, as a client walks it.")

        @Argument(help: "The root documents, 1.root.json first.")
        var files: [PathArgument]

        func run(in environment: CommandEnvironment) async throws {
            try await reportingFailures(in: environment) {
                let newest: RootDocument
                do { newest = try RootDocument.checkChain(try files.map { try Depot.Root.read($0, in: environment) }) } catch let problem
                    as RootDocument.Problem
                {
                    throw CommandFailure(problem.message)
                }
                environment.print("root \(newest.version) verified, expires \(newest.expires)")
            }
        }
    }
}
