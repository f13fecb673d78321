import ArgumentParser
import Crypto
import DepotFiles
import DepotServer
import DepotSigning
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Depot {
    /// `depot keygen --out FILE`: makes the Ed25519 key that signs channel documents.
    struct Keygen: DepotCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an Ed25519 key pair for signing channel documents.",
            discussion: """
                Writes the private key to --out (mode 0600), for the server's channels.signingKeyFile, and \
                prints the public key: give it to clients (DepotClient's trustedKeys, depot sync --trusted-key). \
                To rotate, give clients the new public key beside the old one first.
                """
        )

        @Option(help: "Where to write the private key; an existing file is not replaced.")
        var out: PathArgument

        @Flag(help: "Print the public key and its id as JSON.")
        var json = false

        func run(in environment: CommandEnvironment) async throws {
            try await reportingFailures(in: environment) {
                let key = Curve25519.Signing.PrivateKey()
                let text = SigningKeyFile(key: key).contents
                let descriptor = open(out.path(in: environment), O_WRONLY | O_CREAT | O_EXCL, 0o600)
                guard descriptor >= 0 else {
                    throw CommandFailure("cannot create \(out): \(String(cString: strerror(errno)))")
                }
                defer { close(descriptor) }
                guard write(descriptor, text, text.count) == text.count else {
                    throw CommandFailure("cannot write \(out): \(String(cString: strerror(errno)))")
                }
                do {
                    try Durability.synchronize(descriptor: descriptor, name: out.description)
                } catch {
                    throw CommandFailure("cannot write \(out): \(error)")
                }
                let publicKey = key.publicKey.rawRepresentation.base64EncodedString()
                let id = ChannelSigner.keyID(of: key.publicKey)
                if json { return try environment.printJSON(["publicKey": publicKey, "keyID": id, "file": out.description]) }
                environment.print("public key \(publicKey) (id \(id))")
            }
        }
    }
}
