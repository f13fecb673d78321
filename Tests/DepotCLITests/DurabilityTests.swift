import DepotTestSupport
import Foundation
import Testing

/// What a publish makes durable before it is acknowledged, read from the system calls of the
/// real server (strace, which `scripts/setup` installs).
@Suite("Durability")
struct DurabilityTests {
    static let token = "durability-token"

    @Test("a new blobs/xx folder is fsynced in blobs/ before the publish is acknowledged")
    func newBlobFolderIsSynced() async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            let trace = root.appendingPathComponent("trace")
            try await DepotProcess.with(
                ["serve", "--port", "0", "--public", "public", "--data", "data"],
                environment: ["DEPOT_PUBLISH_TOKENS": Self.token],
                in: root,
                wrapper: ["/usr/bin/strace", "-f", "-qq", "-e", "trace=mkdir,mkdirat,openat,fsync,rename,renameat,renameat2", "-o", trace.path]
            ) { depot in
                let port = try await depot.waitForPort()
                let reply = try await RawHTTPConnection.with(port: port) {
                    try await $0.request(
                        "PUT",
                        "/v1/files/a.txt",
                        headers: [("Authorization", "Bearer \(Self.token)")],
                        body: Array("durable\n".utf8)
                    )
                }
                #expect(reply.status == 201)
                let sha256 = Fixture.sha256(Data("durable\n".utf8))
                let blobs = "data/blobs"  // as the server names it, under --data data
                let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n").map(String.init)
                // The folder blobs/xx is made, then blobs/ itself is opened and fsynced, then the blob
                // is renamed into blobs/xx.
                let made = try #require(lines.firstIndex { $0.contains("mkdir") && $0.contains("\(blobs)/\(sha256.prefix(2))\"") })
                let renamed = try #require(lines.firstIndex { $0.contains("rename") && $0.contains("\(blobs)/\(sha256.prefix(2))/\(sha256)\"") })
                let parentSynced = lines[made..<renamed].contains { line in
                    guard line.contains("openat("), line.contains("\"\(blobs)\""),
                        let fd = line.split(separator: "=").last?.trimmingCharacters(in: .whitespaces)
                    else { return false }
                    return lines[made..<renamed].contains { $0.contains("fsync(\(fd))") }
                }
                #expect(parentSynced, "\(lines[made..<renamed].joined(separator: "\n"))")
            }
        }
    }
}
