/// One setting of `depot serve` and `depot export`: its key, the command-line option that sets it
/// (if any), its type, its default and what it means, as `docs/configuration.md` lists it.
///
/// ``ServerConfiguration/keys`` is the one list of them: the reference's table is made from it
/// (``markdownTable(_:)``), and a test checks that the keys ``ServerConfiguration/init(reader:)``
/// reads, with their types, are exactly those it lists.
public struct ConfigurationKey: Sendable, Hashable {
    /// How a value is read: what the key takes in the config file.
    public enum ValueType: String, Sendable, Hashable {
        case string
        case int
        /// Whole or fractional: JSON's `2` and `2.5` both.
        case number
        case bool
        case stringArray = "string array"
        case intArray = "int array"
    }

    /// The dotted key, `http.port`: `DEPOT_HTTP_PORT` in the environment, `{"http": {"port": …}}`
    /// in the config file.
    public let name: String
    /// The command-line option of `depot serve` that sets it, `--port`, or `nil`.
    public let option: String?
    /// What the key takes.
    public let type: ValueType
    /// A secret (a token): never logged.
    public let isSecret: Bool
    /// The default, as Markdown: `` `8080` ``, `16 MiB`, `none`.
    public let defaultValue: String
    /// What it does, as Markdown.
    public let meaning: String

    /// A key; `meaning` is given in pieces, joined by spaces, so that a long one reads in the
    /// source as it does in the reference.
    public init(_ name: String, option: String? = nil, _ type: ValueType, secret: Bool = false, default defaultValue: String, _ meaning: String...) {
        self.name = name
        self.option = option
        self.type = type
        self.isSecret = secret
        self.defaultValue = defaultValue
        self.meaning = meaning.joined(separator: " ")
    }

    /// The key's row of the reference's table: `| key | option | type | default | meaning |`.
    public var markdownRow: String {
        let option = self.option.map { "`\($0)` " } ?? ""  // an empty cell is `| |`
        let type = isSecret ? "\(self.type.rawValue), secret" : self.type.rawValue
        return "| `\(name)` | \(option)| \(type) | \(defaultValue) | \(meaning) |"
    }

    /// The reference's table of `keys`, with its header, a line a key.
    public static func markdownTable(_ keys: [ConfigurationKey]) -> String {
        (["| key | option | type | default | meaning |", "|---|---|---|---|---|"] + keys.map(\.markdownRow)).joined(separator: "\n")
    }
}
