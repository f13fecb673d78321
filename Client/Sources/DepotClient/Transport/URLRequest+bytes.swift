import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// A request for an object's bytes exactly as stored (a file, a variant, a patch, a pack or
    /// their ranges): `Accept-Encoding: identity`, so that no server, mirror or cache that
    /// negotiates (nginx's `brotli_static`, a CDN that compresses) sends another encoding of
    /// what the client checks byte for byte and resumes by range.
    static func bytes(of url: URL) -> URLRequest {
        var request = URLRequest(url: url)
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        return request
    }
}
