extension ServerConfiguration {
    /// Every key `depot serve` reads (and `depot export`, which reads the server's settings the
    /// same way), with its option, type, default and meaning: the one table of them.
    /// `docs/configuration.md`'s table is `ConfigurationKey.markdownTable(ServerConfiguration.keys)`,
    /// and `ConfigurationReferenceTests` fails when either the reference or what
    /// ``init(reader:)`` reads (`log.level` aside, which the `depot serve` command reads) differs
    /// from it.
    public static let keys: [ConfigurationKey] = ConfigurationKey.http + ConfigurationKey.content + ConfigurationKey.publishing
}
