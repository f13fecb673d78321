import DepotAPI
import DepotManifest
import Hummingbird

extension CommitRequest {
    /// Checks what a commit says of its release besides its files: the minimum client version
    /// and the message. Throws 400 for either out of its form.
    func checkMarks() throws {
        if let minimum = minimumClientVersion, ClientVersion(minimum) == nil {
            throw HTTPError(
                .badRequest,
                message: "minimumClientVersion is one to four numbers separated by dots, as 2.3.1, not \(minimum.prefix(40))"
            )
        }
        // Bytes, not characters: a character may hold any number of combining marks (issue 57).
        if let message,
            message.utf8.count > Self.maximumMessageBytes || message.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            throw HTTPError(
                .badRequest,
                message: "message is at most \(Self.maximumMessageBytes) bytes of UTF-8, with no line breaks or other control characters"
            )
        }
    }
}
