import DepotAPI
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// Names of objects of the tree (``DepotManifest/TreeObject``) as a hostile client or mirror
/// would spell them, on every route that serves one: each is a plain 404 with a short body (400
/// for a path refused before any route: an empty or dot segment, an encoded slash), never a
/// 500, never another object's bytes. In process: the routes' parsing is the subject.
@Suite("Attacks on object names")
struct ObjectNameAttackTests {
    static let data = Data("the served file\n".utf8)
    static let sha = Fixture.sha256(data)
    static let other = String(repeating: "b", count: 64)

    /// Names that are not the canonical name of any object: upper-case hex, a leading zero,
    /// one digit short or long, extra or unknown suffixes, empty, encoded slashes and NULs,
    /// traversal, 10 KB, and one letter of 10 KB (combining marks).
    static let badNames: [String] = [
        sha.uppercased(), "0" + sha, String(sha.dropLast()), sha + "0", sha + ".", sha + ".gz.gz", sha + ".GZ", sha + ".tar",
        sha + "%2F", sha + "%00", sha + "%2Egz", "%20" + sha, sha + "%0A", "..", ".", "%2E%2E", "%2F", "%00",
        String(repeating: "a", count: 10_000), String(repeating: "%41", count: 3_000), "e" + String(repeating: "\u{301}", count: 5_000),
        "01.json", "001.json", "+1.json", "-1.json", "0.json", "1.JSON", "1.json.gz", "1", "99999999999999999999999.json",
    ]

    /// Every route that names an object by a parameter.
    static let folders = ["blobs", "releases", "pages", "packs", "roots", "channels"]

    @Test("a name no object has is a short 404 (or 400) on every object route, for GET and HEAD")
    func badNames() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.connection { connection in
                #expect([200, 201].contains(try await connection.publish("file.txt", Self.data).status))
                let served = try await connection.request("GET", "/blobs/\(Self.sha)")
                #expect(served.status == 200 && served.body == Array(Self.data), "the published blob by its name: \(served.status)")
                var targets = Self.folders.flatMap { folder in Self.badNames.map { "/\(folder)/\($0)" } }
                targets += Self.badNames.flatMap { ["/deltas/\($0)/\(Self.sha)", "/deltas/\(Self.other)/\($0)"] }
                targets += ["/blobs/", "/blobs", "/deltas/\(Self.sha)", "/deltas//\(Self.sha)", "/blobs/\(Self.sha)/x", "/roots/"]
                for target in targets {
                    for method in ["GET", "HEAD"] {
                        let reply = try await connection.request(method, target)
                        #expect([400, 404].contains(reply.status), "\(method) \(target.prefix(120)): \(reply.status) \(reply.bodyText.prefix(200))")
                        #expect(reply.body.count <= 400, "\(method) \(target.prefix(120)): the answer echoes the name, \(reply.body.count) bytes")
                        #expect(reply.body != Array(Self.data), "\(method) \(target.prefix(120)) served the file")
                    }
                }
            }
        }
    }
}
