import Foundation
import NIOCore
import NIOPosix

/// A real nginx (Debian's) running `deploy/nginx/depot.conf` in front of a Depot server, on
/// 127.0.0.1, for the length of a test.
///
/// Run as production runs it: the master as root, its workers (which open the files they serve)
/// as an unprivileged user, so a file nginx's user cannot read is a 403 here as it is there.
public struct Nginx: Sendable {
    /// The workers' user and group, as nginx's `user` directive takes them: `nobody` in
    /// `nogroup`, which own nothing a test writes, so nginx reads only what others may read.
    public static let unprivilegedWorkers = "nobody nogroup"

    /// The port nginx listens on.
    public let port: Int
    let process: DepotProcess
    let folder: URL

    /// One line of nginx's access log: a request it finished.
    public struct LoggedRequest: Sendable, Equatable {
        public let method: String
        public let path: String
        public let status: Int
        public let bodyBytes: Int64
    }

    /// The requests nginx finished, in order (a request cut by ``kill()`` is not among them).
    public var requests: [LoggedRequest] {
        let log = (try? String(contentsOf: folder.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 4, let status = Int(fields[2]), let bytes = Int64(fields[3]) else { return nil }
            return LoggedRequest(method: String(fields[0]), path: String(fields[1]), status: status, bodyBytes: bytes)
        }
    }

    /// Kills nginx, its workers with it (SIGKILL to its process group): a server that dies.
    public func kill() { process.kill() }

    /// `http://127.0.0.1:port` followed by `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The site config as shipped.
    public static var siteConfig: URL { shipped("depot.conf") }

    /// The static mirror's site config as shipped.
    public static var staticMirrorConfig: URL { shipped("static-mirror.conf") }

    private static func shipped(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/nginx/\(name)")
    }

    /// Starts nginx with the shipped site config, changing only its listen address, upstream
    /// address and cache folder; runs `body`; stops nginx.
    public static func with<Result: Sendable>(depotPort: Int, _ body: @Sendable (Nginx) async throws -> Result) async throws -> Result {
        try await with(
            site: siteConfig,
            workers: unprivilegedWorkers,
            changing: { root in
                [
                    ("server 127.0.0.1:8080;", "server 127.0.0.1:\(depotPort);"),
                    ("/var/cache/nginx/depot", root.appendingPathComponent("cache").path),
                ]
            },
            body
        )
    }

    /// Starts nginx with the shipped static mirror site serving the folder `export`, changing
    /// only its listen address and root, its workers run as `workers` (nginx's `user`
    /// directive: a user, then optionally a group); runs `body`; stops nginx. Every folder on
    /// the way to `export` must be searchable by that user, as in production.
    public static func serving<Result: Sendable>(
        export: URL,
        workers: String = unprivilegedWorkers,
        _ body: @Sendable (Nginx) async throws -> Result
    ) async throws -> Result {
        try await with(site: staticMirrorConfig, workers: workers, changing: { _ in [("root /srv/depot-export;", "root \(export.path);")] }, body)
    }

    /// Starts nginx with `site`, its listen address and the replacements `changes` gives for
    /// the temporary folder nginx runs in, its workers run as `workers`; runs `body`; stops
    /// nginx.
    private static func with<Result: Sendable>(
        site config: URL,
        workers: String,
        changing changes: (URL) -> [(String, String)],
        _ body: @Sendable (Nginx) async throws -> Result
    ) async throws -> Result {
        try await withTemporaryDirectory { root in
            let port = try await freeLocalPort()
            var site = try String(contentsOf: config, encoding: .utf8)
            for (shipped, local) in [("listen 80;", "listen 127.0.0.1:\(port);")] + changes(root) {
                guard site.contains(shipped) else { throw NginxError.siteConfigChanged(shipped) }
                site = site.replacingOccurrences(of: shipped, with: local)
            }
            try root.write(Data(site.utf8), to: "depot.conf")
            // As Debian's nginx.conf: the modules apt installed (the brotli-static module).
            let main = """
                include /etc/nginx/modules-enabled/*.conf;
                user \(workers);
                worker_processes 1;
                daemon off;
                pid \(root.path)/nginx.pid;
                error_log \(root.path)/error.log warn;
                events { worker_connections 256; }
                http {
                    log_format depot '$request_method $uri $status $body_bytes_sent';
                    access_log \(root.path)/access.log depot;
                    client_body_temp_path \(root.path)/body;
                    proxy_temp_path \(root.path)/proxy;
                    fastcgi_temp_path \(root.path)/fastcgi;
                    uwsgi_temp_path \(root.path)/uwsgi;
                    scgi_temp_path \(root.path)/scgi;
                    include \(root.path)/depot.conf;
                }
                """
            try root.write(Data(main.utf8), to: "nginx.conf")
            return try await DepotProcess.launch(
                "/usr/sbin/nginx",
                ["-c", root.appendingPathComponent("nginx.conf").path],
                environment: nil,
                in: root
            ) { nginx in
                try await waitUntilListening(port: port, process: nginx)
                let result = try await body(Nginx(port: port, process: nginx, folder: root))
                _ = try await nginx.stop()
                return result
            }
        }
    }

    /// A port nothing listens on now: bound to port 0, read, and released.
    static func waitUntilListening(port: Int, process: DepotProcess) async throws {
        for _ in 0..<200 {
            if (try? await RawHTTPConnection.with(port: port, { _ in true })) == true { return }
            guard process.isRunning else { throw NginxError.exited(process.log) }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw NginxError.exited(process.log)
    }
}

public enum NginxError: Error {
    case siteConfigChanged(String)
    case exited(String)
}
