import DepotServer
import DepotTestSupport
import Foundation
import Synchronization
import Testing

/// Liveness and readiness, as a load balancer or systemd would probe them.
@Suite("Health")
struct HealthTests {
    @Test("/healthz and /readyz answer 200 on a working server")
    func healthy() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.connection { connection in
                let health = try await connection.request("GET", "/healthz")
                #expect(health.status == 200)
                #expect(health.bodyText == #"{"status":"ok"}"#)
                let ready = try await connection.request("GET", "/readyz")
                #expect(ready.status == 200)
                #expect(ready.bodyText == #"{"status":"ready"}"#)
            }
        }
    }

    @Test("/readyz is 503 when the store cannot be written, while /healthz stays 200")
    func storeNotWritable() async throws {
        try await InProcessServer.withPublishing { server in
            // A file where the temporary folder should be: no file can be created in it, even by root.
            let temporary = server.dataDirectory.appendingPathComponent("tmp")
            try FileManager.default.removeItem(at: temporary)
            try Data("not a folder".utf8).write(to: temporary)
            try await server.connection { connection in
                // The verdict of the start-up's probe is reused for a second (ReadinessCheck): ask
                // until the store is checked again (a hang guard of 10 s, ten times the interval).
                var ready = try await connection.request("GET", "/readyz")
                // Hang guard: slowest seen 1.2 s under two busy loops (the whole test).
                for _ in 0..<100 where ready.status == 200 {
                    try await Task.sleep(for: .milliseconds(100))
                    ready = try await connection.request("GET", "/readyz")
                }
                #expect(ready.status == 503)
                #expect(ready.bodyText.contains("The store cannot be written"))
                // Nothing internal: no path, no errno text.
                #expect(!ready.bodyText.contains(server.dataDirectory.path))
                #expect(try await connection.request("GET", "/healthz").status == 200)
            }
        }
    }

    @Test(
        "a first start listens before it has scanned public/: /healthz is 200, /readyz and the folder's files are 503 with Retry-After until the scan is done"
    )
    func listensBeforeTheScan() async throws {
        let held = Mutex(true)
        var configuration = ServerConfiguration()
        // The scan is held back, as by a folder of many gigabytes, until the test lets it go.
        configuration.beforePublicScan = {
            while held.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(10)) }
        }
        let prepare = { (folder: URL) in
            for index in 0..<500 { _ = try folder.write(Data("file \(index)\n".utf8), to: "files-\(index / 100)/\(index).txt") }
        }
        try await InProcessServer.with(configuration: configuration, prepare: prepare) { server in
            try await server.connection { connection in
                #expect(try await connection.request("GET", "/healthz").status == 200)
                for path in ["/readyz", "/files-0/7.txt", "/not-there.txt"] {
                    let response = try await connection.request("GET", path)
                    #expect(response.status == 503, "\(path)")
                    #expect(response.header("Retry-After") == "5", "\(path)")
                    #expect(response.bodyText.contains("The public folder is being scanned"), "\(path)")
                }
                held.withLock { $0 = false }
                try await connection.waitForPublicFolder()
                #expect(try await connection.request("GET", "/readyz").status == 200)
                let file = try await connection.request("GET", "/files-4/499.txt")
                #expect(file.status == 200 && file.bodyText == "file 499\n")
                #expect(try await connection.request("GET", "/not-there.txt").status == 404)
            }
        }
    }

    @Test(
        "a first scan that fails is tried again until it succeeds, with rescans off; meanwhile /readyz and the folder's files say it failed, with 503 and Retry-After"
    )
    func firstScanFailsThenSucceeds() async throws {
        let held = Mutex(true)
        var configuration = ServerConfiguration()
        configuration.publicRescanInterval = nil
        configuration.publicScanRetry = .milliseconds(20)
        configuration.beforePublicScan = {
            while held.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(10)) }
        }
        let prepare = { (folder: URL) in _ = try folder.write(Data("kept\n".utf8), to: "kept.txt") }
        try await InProcessServer.with(configuration: configuration, prepare: prepare) { server in
            // The folder is gone when the scan starts (an unmounted disk): the scan fails.
            let away = server.publicDirectory.deletingLastPathComponent().appendingPathComponent("away-\(UUID().uuidString)")
            try FileManager.default.moveItem(at: server.publicDirectory, to: away)
            held.withLock { $0 = false }
            try await server.connection { connection in
                try await Self.waitForReadyz(connection: &connection) { $0.bodyText.contains("cannot be scanned") }
                for path in ["/readyz", "/kept.txt"] {
                    let response = try await connection.request("GET", path)
                    #expect(response.status == 503, "\(path)")
                    #expect(response.header("Retry-After") == "5", "\(path)")
                    #expect(response.bodyText.contains("The public folder cannot be scanned"), "\(path)")
                    #expect(!response.bodyText.contains(away.path), "\(path)")
                }
                try FileManager.default.moveItem(at: away, to: server.publicDirectory)
                try await Self.waitForReadyz(connection: &connection) { $0.status == 200 }
                let file = try await connection.request("GET", "/kept.txt")
                #expect(file.status == 200 && file.bodyText == "kept\n")
            }
        }
    }

    /// Asks `/readyz` until its answer satisfies `done`; the bound only guards a hang.
    static func waitForReadyz(connection: inout InProcessConnection, until done: (RawHTTPResponse) -> Bool) async throws {
        // Hang guard: slowest seen 0.9 s under two busy loops (the slowest test that waits for /readyz).
        for _ in 0..<30_000 {
            if done(try await connection.request("GET", "/readyz")) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("/readyz never gave the awaited answer")
    }
}
