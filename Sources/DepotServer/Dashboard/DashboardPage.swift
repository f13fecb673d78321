import DepotAPI
import DepotHTTP
import DepotManifest
import DepotPolicy
import DepotStore
import Foundation
import Mustache

/// The dashboard's pages, rendered on the server from the Mustache templates in `Templates/`
/// (built into the binary): every table reads without JavaScript, which only adds the admin's
/// buttons' actions and refreshes the traffic figures. Every `{{value}}` is escaped by
/// ``escape(_:)``, the templates' content type (`DEPOT_HTML`): swift-mustache's own HTML
/// escaping goes by `Character`, and leaves a `"` followed by a combining mark unescaped.
struct DashboardPage: Sendable {
    private let library: MustacheLibrary

    /// Parses the templates; fails at start when one does not parse.
    init() throws {
        MustacheContentTypes.register(HTMLByScalar(), named: "DEPOT_HTML")
        var library = MustacheLibrary()
        let templates: [(String, [UInt8])] = [
            ("layout", PackageResources.layout_mustache), ("overview", PackageResources.overview_mustache),
            ("traffic", PackageResources.traffic_mustache), ("diff", PackageResources.diff_mustache),
            ("file", PackageResources.file_mustache), ("rollouts", PackageResources.rollouts_mustache),
            ("audit", PackageResources.audit_mustache),
        ]
        for (name, bytes) in templates {
            try library.register(String(decoding: bytes, as: UTF8.self), named: name)
        }
        self.library = library
    }

    /// Escapes for HTML as ``DashboardPage/escape(_:)`` does.
    struct HTMLByScalar: MustacheContentType {
        func escapeText(_ text: String) -> String { DashboardPage.escape(text) }
    }

    func overview(_ overview: DashboardData.Overview) -> String {
        let role = overview.role
        let channels = overview.channels.map { channel in
            [
                "mayPromote": role.mayPromote(channel.name), "name": channel.name, "rollingOut": channel.rollingOut ?? "",
                "hasRollout": channel.rollingOut != nil, "number": channel.release.number, "id": channel.release.id,
                "shortID": String(channel.release.id.prefix(12)), "since": channel.since,
                "signed": channel.signedBy != nil, "key": channel.signedBy ?? "",
                "promotable": overview.releases.filter { $0.id != channel.release.id }.map(\.number),
                "rollbackConfirm": channel.rollbackConfirm ?? "", "mayRollBack": channel.rollbackConfirm != nil,
                // A promote during a rollout is refused (it would change the rollout's base):
                // the page offers none.
                "mayPromoteNow": role.mayPromote(channel.name) && channel.rollingOut == nil,
            ] as [String: Any]
        }
        let releases = overview.releases.map { release in
            [
                "number": release.number, "id": release.id, "shortID": String(release.id.prefix(12)), "channel": release.channel,
                "liveOn": Self.liveOn(release, overview).joined(separator: ", "),
                "created": HTTPDate(secondsSince1970: release.createdAt).imfFixdate, "files": release.files,
                "size": ByteCountText(release.bytes), "message": release.message ?? "", "hasPrevious": release.parent != nil,
                "critical": release.critical, "minimumClientVersion": release.minimumClientVersion ?? "",
                "hasMinimum": release.minimumClientVersion != nil,
                // Its changes are against its parent, the release it was made from, whatever its number.
                "previous": release.parent ?? "",
            ] as [String: Any]
        }
        let body = render(
            "overview",
            [
                "anyPromote": overview.channels.contains { role.mayPromote($0.name) }, "channels": channels, "hasChannels": !channels.isEmpty,
                "releases": releases,
                "hasReleases": !releases.isEmpty, "numbers": overview.releases.map(\.number),
                "rollouts": overview.rollouts.map { Self.rollout($0).merging(["mayControl": role.mayControlRollouts($0.channel)]) { $1 } },
                "hasRollouts": !overview.rollouts.isEmpty,
                "standard": Self.standardPlan,
                "startable": overview.channels.filter { channel in
                    role.mayControlRollouts(channel.name) && !overview.rollouts.contains { $0.channel == channel.name && $0.isLive }
                }
                .map { channel in
                    [
                        "channel": channel.name, "current": channel.release.number,
                        "releases": overview.releases.filter { $0.id != channel.release.id }.map(\.number),
                    ] as [String: Any]
                },
            ].merging(Self.traffic(overview.traffic)) { $1 }
        )
        return layout(title: "Depot", role: overview.role, body: body)
    }

    /// Where `release` is live: each channel on it, and each whose live rollout brings it, with
    /// the share.
    static func liveOn(_ release: ReleaseSummary, _ overview: DashboardData.Overview) -> [String] {
        overview.channels.filter { $0.release.id == release.id }.map(\.name)
            + overview.rollouts.filter { $0.isLive && $0.release == release.number }.map { "\($0.channel) (rollout, \($0.percent)%)" }
    }

    /// The traffic figures, by their name in ``DashboardData/Traffic/figures``.
    static let figures = [
        (name: "requests", label: "Requests"), (name: "notModifiedShare", label: "304 share"), (name: "errors", label: "Errors"),
        (name: "bytesSent", label: "Bytes sent"), (name: "bytesSaved", label: "Saved by patches"),
    ]

    /// What the traffic section shows: the figures, a bar a minute, and the minutes with requests.
    static func traffic(_ traffic: DashboardData.Traffic) -> [String: Any] {
        let summary = traffic.summary
        let peak = traffic.minutes.max { $0.requests < $1.requests }
        let highest = max(1, peak?.requests ?? 0)
        let width = 6
        let bars = traffic.minutes.enumerated().map { index, minute in
            let height = minute.requests * 100 / highest
            return ["x": index * width, "y": 100 - height, "width": width - 1, "height": height]
        }
        let described =
            "Requests a minute over the last hour: \(summary.requests) in all"
            + (peak.map { $0.requests > 0 ? ", at most \($0.requests) in the minute from \(clock($0.start))" : "" } ?? "")
        let minutes = traffic.minutes.filter { $0.requests > 0 }.map { minute in
            [
                "clock": clock(minute.start), "requests": minute.requests, "notModified": minute.notModified,
                "errors": minute.clientErrors + minute.serverErrors, "sent": ByteCountText(minute.bytesSent),
                "saved": ByteCountText(minute.bytesSaved),
            ] as [String: Any]
        }
        return [
            "figures": figures.map { ["name": $0.name, "label": $0.label, "value": traffic.figures[$0.name] ?? ""] },
            "chartWidth": traffic.minutes.count * width, "bars": bars, "described": described, "minutes": minutes,
            "hasMinutes": !minutes.isEmpty,
        ]
    }

    func diff(_ diff: DashboardData.Diff, role: DashboardRole) -> String {
        func rows(_ changes: [DashboardData.Diff.Change], _ kind: String) -> [[String: Any]] {
            changes.map { change in
                [
                    "kind": kind, "path": change.path, "encodedPath": Self.percentEncoded(change.path),
                    "before": Self.size(change.before), "after": Self.size(change.after),
                ]
            }
        }
        let changes = rows(diff.added, "added") + rows(diff.changed, "changed") + rows(diff.removed, "removed")
        let body = render(
            "diff",
            [
                "from": diff.from.number, "to": diff.to.number, "added": diff.added.count, "changed": diff.changed.count,
                "removed": diff.removed.count, "changes": changes, "hasChanges": !changes.isEmpty,
            ]
        )
        return layout(title: "Depot: release #\(diff.from.number) → #\(diff.to.number)", role: role, body: body)
    }

    func file(_ file: DashboardData.File, role: DashboardRole) -> String {
        let versions = file.versions.map { entry in
            let version = entry.version
            let patches = entry.patches.enumerated().map { index, patch in
                [
                    "separated": index > 0,
                    "text": "from v\(patch.fromVersion): \(ByteCountText(patch.size)), saves \(ByteCountText(patch.bytesSaved))",
                ] as [String: Any]
            }
            return [
                "version": version.version, "published": HTTPDate(secondsSince1970: version.publishedAt).imfFixdate,
                "size": ByteCountText(version.size), "gzip": version.gzipSize.map(ByteCountText) ?? "–", "patches": patches,
                "brotli": file.variantSize(version.sha256, .br).map(ByteCountText) ?? "–",
                "zstd": file.variantSize(version.sha256, .zstd).map(ByteCountText) ?? "–",
                "retired": version.retiredAt != nil, "liveOn": entry.liveOn.joined(separator: ", "),
            ] as [String: Any]
        }
        let body = render("file", ["path": file.path, "versions": versions, "hasVersions": !versions.isEmpty])
        return layout(title: "Depot: \(file.path)", role: role, body: body)
    }

    /// The audit trail's newest records, filtered by channel and token as asked.
    func audit(_ records: [AuditRecord], channel: String?, token: String?, role: DashboardRole) -> String {
        let rows = records.map { record in
            [
                "time": HTTPDate(secondsSince1970: record.at).imfFixdate, "token": record.token, "client": record.client ?? "",
                "action": record.action, "channel": record.channel ?? "", "release": record.release.map { "#\($0)" } ?? "",
                "serial": record.serial.map(String.init) ?? "", "detail": record.detail ?? "",
            ] as [String: Any]
        }
        let body = render(
            "audit",
            ["records": rows, "hasRecords": !rows.isEmpty, "count": rows.count, "channel": channel ?? "", "token": token ?? ""]
        )
        return layout(title: "Depot: audit trail", role: role, body: body)
    }

    /// A refused request's page: its message, and the way back.
    func refusal(_ message: String, role: DashboardRole) -> String {
        layout(
            title: "Depot",
            role: role,
            body: "<section><h2>Not found</h2><p>\(Self.escape(message))</p><p><a href=\"/dashboard/\">Back to the dashboard</a></p></section>"
        )
    }

    private func layout(title: String, role: DashboardRole, body: String) -> String {
        render("layout", ["title": title, "role": role.kind, "admin": role.acts, "signedIn": role.signedIn, "token": role.name, "body": body])
    }

    private func render(_ template: String, _ values: [String: Any]) -> String {
        // The templates are built in and parsed at start, so each one is there.
        library.render(values, withTemplate: template) ?? ""
    }

    /// Text and attribute values, escaped for HTML.
    static func escape(_ text: some StringProtocol) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        // By Unicode scalar, not by Character: a `"` or `<` followed by a combining mark is one
        // grapheme cluster, which a comparison with "\"" does not match, yet a browser's parser
        // reads the `"` alone.
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    static func percentEncoded(_ path: String) -> String {
        path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["&", "=", "?", "#", "+"])) ?? path
    }

    /// A file's version and size, with its gzip, brotli and zstd sizes where it has them:
    /// `v3, 1.2 MB (gzip 400 KB, br 310 KB, zstd 330 KB)`.
    static func size(_ entry: DashboardData.ReleaseEntrySize?) -> String {
        guard let entry else { return "–" }
        let variants = [("gzip", entry.gzipSize), ("br", entry.brotliSize), ("zstd", entry.zstdSize)].compactMap { name, size in
            size.map { "\(name) \(ByteCountText($0))" }
        }
        return "v\(entry.version), \(ByteCountText(entry.size))" + (variants.isEmpty ? "" : " (\(variants.joined(separator: ", ")))")
    }

    static func percent(_ share: Double) -> String { String(format: "%.0f%%", share * 100) }

    /// `HH:MM` (UTC) of a minute's start.
    static func clock(_ seconds: Int64) -> String {
        let minutes = Int(seconds / 60 % (24 * 60))
        return String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }
}
