import Foundation

extension URL {
    /// The URL as messages, reports and logs print it: without the user and password a server
    /// URL may carry (`https://user:secret@host/` → `https://host/`).
    public var redacted: String {
        guard user != nil || password != nil, var components = URLComponents(url: self, resolvingAgainstBaseURL: true) else {
            return absoluteString
        }
        components.user = nil
        components.password = nil
        return components.string ?? absoluteString
    }
}
