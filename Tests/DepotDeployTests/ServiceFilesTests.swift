import DepotTestSupport
import Foundation
import Testing

/// `deploy/depot.service` and `deploy/config.example.json`, exercised as shipped.
@Suite("Service files")
struct ServiceFilesTests {
    static let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy")

    @Test("systemd-analyze verifies the unit", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")))
    func systemdUnit() async throws {
        try await withTemporaryDirectory { folder in
            var unit = try String(contentsOf: Self.deploy.appendingPathComponent("depot.service"), encoding: .utf8)
            let shipped = "ExecStart=/usr/local/bin/depot "
            try #require(unit.contains(shipped))
            unit = unit.replacingOccurrences(of: shipped, with: "ExecStart=\(DepotProcess.executable.path) ")
            try folder.write(Data(unit.utf8), to: "depot.service")
            let output = try await DepotProcess.run(
                "/usr/bin/systemd-analyze",
                ["verify", folder.appendingPathComponent("depot.service").path],
                in: folder
            )
            #expect(output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(output)")
            #expect(unit.contains("Restart=on-failure"))
            #expect(unit.contains("ProtectSystem=strict"))
            #expect(unit.contains("StateDirectory=depot"))
        }
    }

    @Test("depot serve starts on the example config, and its settings take effect")
    func exampleConfig() async throws {
        try await withTemporaryDirectory { root in
            try root.write(Data("body{}\n".utf8), to: "public/assets/site.css")
            try root.write(Data("secret-from-file\n".utf8), to: "tokens")
            try await DepotProcess.with(
                [
                    "serve", "--config", Self.deploy.appendingPathComponent("config.example.json").path,
                    "--port", "0", "--public", "public", "--data", "data",
                ],
                environment: ["DEPOT_PUBLISH_TOKEN_FILE": root.appendingPathComponent("tokens").path],
                in: root
            ) { depot in
                let port = try await depot.waitForPort()
                try await RawHTTPConnection.with(port: port) { connection in
                    let asset = try await connection.request("GET", "/assets/site.css")
                    #expect(asset.status == 200)
                    #expect(asset.header("Cache-Control") == "public, max-age=86400", "public.cacheControlRules")
                    #expect(asset.header("Server") == "depot", "http.serverName")
                    let publish = try await connection.request(
                        "PUT",
                        "/v1/files/a.txt",
                        headers: [("Authorization", "Bearer secret-from-file")],
                        body: Array("a\n".utf8)
                    )
                    #expect(publish.status == 201, "publish.tokenFile")
                }
                #expect(try await depot.stop() == 0)
            }
        }
    }
}
