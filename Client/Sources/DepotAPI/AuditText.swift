/// How the audit trail quotes text that came from a request (a path, a channel name): cut, and
/// each control character written as `\u{…}`, so that no field holds a line break or a tab a
/// reader could take for another record. The server applies it when it records, `depot audit`
/// when it prints.
public enum AuditText {
    public static func escaped(_ text: String, limit: Int = .max) -> String {
        String(
            text.prefix(limit).unicodeScalars.map { scalar in
                scalar.properties.generalCategory == .control ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
            }.joined()
        )
    }
}
