import DepotManifest
import DepotServer
import Foundation

/// The phases of a publish after its upload, told on standard error: on a terminal, a line as
/// each begins, which the next replaces (and the summary clears); when not on a terminal, a line
/// as each ends, with its time and what the publish waits for next, so that a CI log shows
/// where a publish's time goes (and a refusal stays one line: a phase that failed is not told).
/// The phases are what the client waits for (the server storing an uploaded file, committing
/// the release), not estimates: the server sends no progress of its own.
struct PublishPhases: Sendable {
    /// Whether standard error is a terminal.
    let isTerminal: Bool
    /// Whether anything is told (not with `--json`).
    let isEnabled: Bool
    /// Where it is told (standard error).
    let errors: TextWriter

    init(isEnabled: Bool, isTerminal: Bool, errors: TextWriter) {
        self.isEnabled = isEnabled
        self.isTerminal = isTerminal
        self.errors = errors
    }

    /// On a terminal, tells that `phase` began.
    func begin(_ phase: String) {
        guard isEnabled, isTerminal else { return }
        errors.write("\r\u{1B}[K\(phase)…")
    }

    /// Tells, when not on a terminal, that the upload ended (when anything was sent) and, on
    /// either, that the commit begins.
    func committing(channel: String, listed: Int, sent: Int64, files: Int, after elapsed: Duration) {
        let next = "committing the release on \(channel) (\(listed) files listed): the server indexes and patches new files"
        if files > 0 { ended("uploaded \(files) files (\(ByteCountText(sent))) in \(Self.seconds(elapsed)); \(next)") }
        begin(next)
    }

    /// When not on a terminal, tells that `phase` ended.
    func ended(_ phase: String) {
        guard isEnabled, !isTerminal else { return }
        errors.write(line(phase))
    }

    /// The line ``ended(_:)`` writes for `phase`.
    func line(_ phase: String) -> String { "depot publish: \(phase)\n" }

    /// `elapsed` as `1.2 s`.
    static func seconds(_ elapsed: Duration) -> String {
        let (seconds, attoseconds) = elapsed.components
        return String(format: "%.1f s", Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// Clears the terminal's phase line, so that the summary takes its place.
    func finish() {
        guard isEnabled, isTerminal else { return }
        errors.write("\r\u{1B}[K")
    }
}
