import Configuration

extension ChannelSigner {
    /// Reads the `channels.*` keys from the `channels` scope (see ``ServerConfiguration/init(reader:)``).
    init(reader channels: ConfigReader) throws {
        let validity = channels.number(forKey: "validitySeconds", default: ChannelSigner().validity / .seconds(1))
        guard validity >= 60 else { throw ConfigurationError("channels.validitySeconds must be at least 60") }
        let files = channels.string(forKey: "signingKeyFile").map { [$0] } ?? []
        let keys = try (files + channels.stringArray(forKey: "signingKeyFiles", default: [])).map(Self.readKey(file:))
        let roots = try channels.string(forKey: "rootDirectory").map(Self.readRoots(folder:)) ?? []
        try self.init(keys: keys, roots: roots, validity: .seconds(Int64(validity)))
    }
}
