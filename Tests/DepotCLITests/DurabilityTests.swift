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
                wrapper: [
                    "/usr/bin/strace", "-f", "-qq", "-e", "trace=mkdir,mkdirat,open,openat,close,dup,dup2,dup3,fcntl,fsync,rename,renameat,renameat2",
                    "-o", trace.path,
                ]
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
                let folder = "\(blobs)/\(sha256.prefix(2))"
                let calls = SystemCallTrace(log: try String(contentsOf: trace, encoding: .utf8)).calls
                let shown = calls.filter { $0.paths.contains { $0.contains("blobs") } }.map {
                    "\($0.name)(\($0.arguments.joined(separator: ", "))) = \($0.result) \($0.paths)"
                }
                // The folder blobs/xx is made (by its path, or by its name relative to a
                // descriptor of blobs/), then a descriptor of blobs/ itself is fsynced, then the
                // blob is renamed into blobs/xx; all before the 201.
                let made = try #require(
                    calls.firstIndex { ["mkdir", "mkdirat"].contains($0.name) && $0.succeeded && $0.paths.first?.names(folder) == true },
                    "\(shown.joined(separator: "\n"))"
                )
                let renamed = try #require(
                    calls[made...].firstIndex { $0.name.hasPrefix("rename") && $0.succeeded && $0.paths.last?.names("\(folder)/\(sha256)") == true },
                    "\(shown.joined(separator: "\n"))"
                )
                let parentSynced = calls[made..<renamed].contains { $0.name == "fsync" && $0.succeeded && $0.paths.first?.names(blobs) == true }
                #expect(parentSynced, "\(shown.joined(separator: "\n"))")
            }
        }
    }
}
