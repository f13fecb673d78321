import DepotTestSupport
import Foundation
import Testing

/// The dashboard in a real browser: headless Chromium, driven by Playwright for Python
/// (`Browser/dashboard.py`, installed by `scripts/setup`), against a real `depot serve` holding
/// three releases. The browser rolls `stable` back, then starts a rollout of release 3 (Start
/// asks to confirm; the card says what the gate waits for and promises no step; no Promote
/// meanwhile) that its gate halts and the browser rolls back (the ended card folds); at 390 px the
/// releases table wraps; `depot sync` then gets release 2.
@Suite("Dashboard in a browser")
struct DashboardBrowserTests {
    static let adminToken = "dashboard-admin-token"
    static let readToken = "dashboard-read-token"
    /// A token that may promote and roll back stable, and read: no rollout controls.
    static let managerToken = "dashboard-manager-token"
    static let packageRoot = PackageRoot.url

    /// Runs `depot` to its end; its exit status and what it printed.
    static func depot(_ arguments: [String], in root: URL) async throws -> (status: Int32, log: String) {
        try await DepotProcess.run(arguments, environment: ["DEPOT_TOKEN": adminToken], in: root)
    }

    @Test(
        "the channel's release, the diff, rollback, a rollout halted by its gate and rolled back (then depot sync gets release 2), no buttons for a read token, only a scope's buttons for a scoped token, no console errors"
    )
    func dashboard() async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            try await DepotProcess.with(
                ["serve", "--port", "0", "--public", "public", "--data", "data"],
                environment: [
                    "DEPOT_PUBLISH_TOKENS": Self.adminToken,
                    "DEPOT_DASHBOARD_ENABLED": "true",
                    "DEPOT_DASHBOARD_READ_TOKENS": Self.readToken,
                    "DEPOT_ACCESS_TOKENS": "name=manager promote=stable read token=\(Self.managerToken)",
                    // No address reads without a token, so the browser's 401 is tested.
                    "DEPOT_DASHBOARD_ALLOWED_ADDRESSES": "192.0.2.1",
                    // The rollout's gate is weighed every 0.2 s, so its halt shows at once.
                    "DEPOT_ROLLOUTS_TICK_SECONDS": "0.2",
                    // The browser's reports come from one address: here it stands for many.
                    "DEPOT_REPORTS_GATE_NETWORKS": "1", "DEPOT_REPORTS_INSTALLS_PER_NETWORK": "1000",
                ],
                in: root
            ) { server in
                let url = "http://127.0.0.1:\(try await server.waitForPort())"
                for version in 1...3 {
                    try root.write(Data("version \(version)\n".utf8), to: "site/a.txt")
                    try root.write(Data("only in \(version)\n".utf8), to: "site/only-\(version).txt")
                    if version > 1 { try FileManager.default.removeItem(at: root.appendingPathComponent("site/only-\(version - 1).txt")) }
                    let published = try await Self.depot(["publish", "site", "--replace", "--server", url], in: root)
                    try #require(published.status == 0, "\(published.log)")
                }

                let artifacts = Self.packageRoot.appendingPathComponent(".build/test-artifacts")
                try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
                let screenshot = artifacts.appendingPathComponent("dashboard.png")
                let script = Self.packageRoot.appendingPathComponent("Tests/DepotEndToEndTests/Deploy/Browser/dashboard.py")
                let browser = try await ChildProcess.run(
                    "python3",
                    [script.path, url, Self.adminToken, Self.readToken, screenshot.path, Self.managerToken],
                    // Hang guard for the browser run: not measured under load here (it needs Playwright); its own timeouts are shorter.
                    timeout: .seconds(180)
                )
                let output = String(decoding: browser.standardOutput + browser.standardError, as: UTF8.self)
                #expect(browser.status == 0, "\(output)")
                #expect(FileManager.default.fileExists(atPath: screenshot.path))

                let synced = try await Self.depot(["sync", "--server", url, "--dir", "out"], in: root)
                #expect(synced.status == 0, "\(synced.log)")
                #expect(synced.log.contains("release 2 of stable"), "\(synced.log)")
                #expect(try String(contentsOf: root.appendingPathComponent("out/a.txt"), encoding: .utf8) == "version 2\n")
                #expect(try await server.stop() == 0)
            }
        }
    }
}
