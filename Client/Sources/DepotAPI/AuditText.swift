/// How the audit trail quotes text that came from a request (a path, a channel name): cut, and
/// each control character written as `\u{…}`, so that no field holds a line break or a tab a
/// reader could take for another record. The server applies it when it records, `depot audit`
/// when it prints.
public enum AuditText {
    /// `text` cut to its first `limit` Unicode scalars (a limit in characters would let one
    /// character of thousands of combining marks through whole), each control character escaped.
    public static func escaped(_ text: String, limit: Int = .max) -> String {
        String(
            text.unicodeScalars.prefix(limit).map { scalar in
                scalar.properties.generalCategory == .control ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
            }.joined()
        )
    }
}
