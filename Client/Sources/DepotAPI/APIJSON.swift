import Foundation

/// How Depot writes and reads JSON: the publisher API's replies and requests, and the channel
/// documents the server signs (sorted keys, so that the same value is the same bytes).
public enum APIJSON {
    /// Sorted keys, slashes unescaped.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Decodes `bytes` as `type`.
    public static func decode<Value: Decodable>(_ type: Value.Type, from bytes: some Sequence<UInt8>) throws -> Value {
        try JSONDecoder().decode(type, from: Data(bytes))
    }
}
