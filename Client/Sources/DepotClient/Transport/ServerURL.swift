import Foundation

/// A server's URL as the client takes it, the one rule for every server URL it is given
/// (``DepotClient/servers``, ``DepotClient/Configuration/reportServer``): its path ends in `/`,
/// so that the tree's URLs (`channels/stable`, `blobs/…`, `v1/reports`) resolve below it.
///
/// Without it, a server with a path of its own and no trailing slash, as an S3 path-style
/// bucket (`https://s3.example.com/bucket/prefix`), would lose its last segment: RFC 3986
/// resolves `blobs/…` against `https://s3.example.com/bucket/`, and gets 404.
enum ServerURL {
    /// `url` with `/` after its path, when it has none there; else `url`.
    static func base(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true), !components.percentEncodedPath.hasSuffix("/") else {
            return url
        }
        components.percentEncodedPath += "/"
        return components.url ?? url
    }
}
