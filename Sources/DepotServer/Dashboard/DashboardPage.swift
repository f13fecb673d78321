import DepotHTTP
import DepotStore
import Foundation

/// The dashboard's pages, rendered on the server: every table reads without JavaScript, which
/// only adds the admin's buttons' actions and refreshes the traffic figures.
enum DashboardPage {
    static func overview(_ overview: DashboardData.Overview) -> String {
        let admin = overview.role == .admin
        let channelRows = overview.channels.map { channel in
            var row = """
                <tr><th scope="row">\(escape(channel.name))</th>\
                <td>#\(channel.release.number) <code title="\(escape(channel.release.id))">\(channel.release.id.prefix(12))</code></td>\
                <td>\(escape(channel.since))</td>\
                <td>\(channel.signedBy.map { "signed, key <code>\(escape($0))</code>" } ?? "unsigned")</td>
                """
            if admin {
                let options = overview.releases.filter { $0.id != channel.release.id }.map { "<option value=\"\($0.number)\">#\($0.number)</option>" }
                row += """
                    <td class="actions"><button type="button" data-action="rollback" data-channel="\(escape(channel.name))">Roll back</button> \
                    <label>Promote <select data-promote-release="\(escape(channel.name))">\(options.joined())</select></label> \
                    <button type="button" data-action="promote" data-channel="\(escape(channel.name))">Promote</button></td>
                    """
            }
            return row + "</tr>"
        }
        let releaseRows = overview.releases.map { release in
            let diff = release.number > 1 ? "<a href=\"/dashboard/diff?from=\(release.number - 1)&amp;to=\(release.number)\">changes</a>" : ""
            return """
                <tr><th scope="row">#\(release.number)</th><td><code title="\(escape(release.id))">\(release.id.prefix(12))</code></td>\
                <td>\(escape(release.channel))</td><td>\(escape(HTTPDate(secondsSince1970: release.createdAt).imfFixdate))</td>\
                <td class="number">\(release.files)</td><td class="number">\(ByteCountText(release.bytes))</td><td>\(diff)</td></tr>
                """
        }
        let numbers = overview.releases.map { "<option value=\"\($0.number)\">#\($0.number)</option>" }.joined()
        let body = """
            <section aria-labelledby="channels"><h2 id="channels">Channels</h2>
            \(table(["Channel", "Release", "Since", "Signature"] + (admin ? ["Actions"] : []), channelRows, empty: "No channel yet: publish a release."))
            </section>
            \(traffic(overview.traffic))
            <section aria-labelledby="releases"><h2 id="releases">Releases</h2>
            <form class="inline" action="/dashboard/diff" method="get">
            <label>From <select name="from">\(numbers)</select></label> <label>to <select name="to">\(numbers)</select></label>
            <button type="submit">Compare</button></form>
            <form class="inline" action="/dashboard/file" method="get">
            <label>File <input name="path" required placeholder="db/catalog.sqlite"></label> <button type="submit">Show</button></form>
            \(table(["Release", "Id", "Channel", "Created", "Files", "Size", ""], releaseRows, empty: "No release yet."))
            </section>
            """
        return layout(title: "Depot", role: overview.role, body: body)
    }

    /// The traffic figures, by their name in ``DashboardData/Traffic/figures``.
    static let figures = [
        (name: "requests", label: "Requests"), (name: "notModifiedShare", label: "304 share"), (name: "errors", label: "Errors"),
        (name: "bytesSent", label: "Bytes sent"), (name: "bytesSaved", label: "Saved by patches"),
    ]

    static func traffic(_ traffic: DashboardData.Traffic) -> String {
        let summary = traffic.summary
        let peak = traffic.minutes.max { $0.requests < $1.requests }
        let highest = max(1, peak?.requests ?? 0)
        let width = 6
        let bars = traffic.minutes.enumerated().map { index, minute in
            let height = minute.requests * 100 / highest
            return "<rect x=\"\(index * width)\" y=\"\(100 - height)\" width=\"\(width - 1)\" height=\"\(height)\"></rect>"
        }
        let described =
            "Requests a minute over the last hour: \(summary.requests) in all"
            + (peak.map { $0.requests > 0 ? ", at most \($0.requests) in the minute from \(clock($0.start))" : "" } ?? "")
        let rows = traffic.minutes.filter { $0.requests > 0 }.map { minute in
            "<tr><th scope=\"row\">\(clock(minute.start))</th><td class=\"number\">\(minute.requests)</td><td class=\"number\">\(minute.notModified)</td>"
                + "<td class=\"number\">\(minute.clientErrors + minute.serverErrors)</td><td class=\"number\">\(ByteCountText(minute.bytesSent))</td>"
                + "<td class=\"number\">\(ByteCountText(minute.bytesSaved))</td></tr>"
        }
        return """
            <section aria-labelledby="traffic"><h2 id="traffic">Traffic, last hour</h2>
            <dl class="figures">
            \(figures.map { "<div><dt>\($0.label)</dt><dd data-figure=\"\($0.name)\">\(escape(traffic.figures[$0.name] ?? ""))</dd></div>" }.joined(separator: "\n"))
            </dl>
            <figure><svg class="chart" viewBox="0 0 \(traffic.minutes.count * width) 100" preserveAspectRatio="none" role="img" aria-labelledby="chart-text">\
            \(bars.joined())</svg>
            <figcaption id="chart-text">\(escape(described)).</figcaption></figure>
            <details><summary>Minute by minute</summary>
            \(table(["Minute (UTC)", "Requests", "304", "Errors", "Sent", "Saved"], rows, empty: "No request in the last hour."))
            </details></section>
            """
    }

    static func diff(_ diff: DashboardData.Diff, role: DashboardRole) -> String {
        func rows(_ changes: [DashboardData.Diff.Change], _ kind: String) -> [String] {
            changes.map { change in
                "<tr><td>\(kind)</td><th scope=\"row\"><a href=\"/dashboard/file?path=\(escape(percentEncoded(change.path)))\">\(escape(change.path))</a></th>"
                    + "<td class=\"number\">\(size(change.before))</td><td class=\"number\">\(size(change.after))</td></tr>"
            }
        }
        let all = rows(diff.added, "added") + rows(diff.changed, "changed") + rows(diff.removed, "removed")
        let body = """
            <section aria-labelledby="diff"><h2 id="diff">Release #\(diff.from.number) → #\(diff.to.number)</h2>
            <p>\(diff.added.count) added, \(diff.changed.count) changed, \(diff.removed.count) removed.</p>
            \(table(["Change", "Path", "Before", "After"], all, empty: "The two releases hold the same files.", id: "diff-table"))
            </section>
            """
        return layout(title: "Depot: release #\(diff.from.number) → #\(diff.to.number)", role: role, body: body)
    }

    static func file(_ file: DashboardData.File, role: DashboardRole) -> String {
        let rows = file.versions.map { entry in
            let version = entry.version
            let patches = entry.patches.map { "from v\($0.fromVersion): \(ByteCountText($0.size)), saves \(ByteCountText($0.bytesSaved))" }
            return """
                <tr><th scope="row">v\(version.version)</th><td>\(escape(HTTPDate(secondsSince1970: version.publishedAt).imfFixdate))</td>\
                <td class="number">\(ByteCountText(version.size))</td><td class="number">\(version.gzipSize.map(ByteCountText) ?? "–")</td>\
                <td>\(patches.isEmpty ? "none" : patches.joined(separator: "<br>"))</td><td>\(version.retiredAt == nil ? "" : "retired")</td></tr>
                """
        }
        let body = """
            <section aria-labelledby="file"><h2 id="file">\(escape(file.path))</h2>
            \(table(["Version", "Published", "Size", "Gzip", "Patches to it", ""], rows, empty: "No version of this path."))
            </section>
            """
        return layout(title: "Depot: \(file.path)", role: role, body: body)
    }

    static func layout(title: String, role: DashboardRole, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="/dashboard/dashboard.css">
        <script type="module" src="/dashboard/dashboard.js"></script>
        </head>
        <body data-role="\(role.rawValue)">
        <header><h1><a href="/dashboard/">Depot</a></h1><p>\(role == .admin ? "Signed in with a publish token" : "Read-only: <a href=\"/dashboard/signin\">sign in with a publish token</a>")</p></header>
        <main>
        \(body)
        </main>
        <p id="status" role="status" aria-live="polite"></p>
        </body>
        </html>

        """
    }

    static func table(_ headings: [String], _ rows: [String], empty: String, id: String? = nil) -> String {
        guard !rows.isEmpty else { return "<p>\(escape(empty))</p>" }
        let head = headings.map { "<th scope=\"col\">\(escape($0))</th>" }.joined()
        return "<div class=\"scroll\"><table\(id.map { " id=\"\($0)\"" } ?? "")><thead><tr>\(head)</tr></thead><tbody>\n"
            + rows.joined(separator: "\n") + "\n</tbody></table></div>"
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

    static func size(_ entry: DashboardData.ReleaseEntrySize?) -> String {
        guard let entry else { return "–" }
        return "v\(entry.version), \(ByteCountText(entry.size))"
    }

    static func percent(_ share: Double) -> String { String(format: "%.0f%%", share * 100) }

    /// `HH:MM` (UTC) of a minute's start.
    static func clock(_ seconds: Int64) -> String {
        let minutes = Int(seconds / 60 % (24 * 60))
        return String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }
}
