import ArgumentParser
import Foundation

/// What channel documents must be signed by: the options of `depot sync` and `depot mirror`.
struct TrustOptions: ParsableArguments {
    @Option(name: .customLong("trusted-key"), help: "A public key (base64, from depot keygen) channel documents must be signed by (repeatable).")
    var trustedKeys: [String] = []

    @Option(help: "The signed root the channel's keys descend from (depot root init), in place of --trusted-key.")
    var trustedRoot: PathArgument?

    /// The bytes of the `--trusted-root` file, checked by the client (`ChannelCheck.Trust`).
    func rootDocument(in environment: CommandEnvironment) throws -> Data? {
        try trustedRoot.map { file in
            guard let data = FileManager.default.contents(atPath: file.path(in: environment)) else { throw CommandFailure("cannot read \(file)") }
            return data
        }
    }
}
