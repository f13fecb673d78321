import Foundation

/// `--json`: a command's result as one line of JSON, keys sorted, slashes unescaped: the one
/// form every command that takes the flag prints.
func jsonLine(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

extension CommandEnvironment {
    /// Prints ``jsonLine(_:)`` of `value` to the output.
    func printJSON(_ value: some Encodable) throws {
        print(try jsonLine(value))
    }
}
