import ArgumentParser
import DepotHTTP
import DepotStore
import Foundation

/// The data folder `depot restore` and `depot import` make, and the margins by which they raise
/// each channel's serial and the next release's number: one rule for both.
struct RebuildOptions: ParsableArguments {
    @Option(help: "The data folder to make (must not exist, or be empty).")
    var data: PathArgument

    @Option(help: "How much each channel's serial is raised: more than the channel changes the copy may not hold.")
    var serialMargin: Int64 = 1000

    @Option(
        help: """
            How far past the copy's newest release the next release is numbered: more than the releases the copy may \
            not hold, so that no number a lost release had is given again.
            """
    )
    var releaseMargin: Int64 = 100

    func validate() throws {
        guard (0...1_000_000_000).contains(serialMargin) else { throw ValidationError("--serial-margin takes 0 to 1000000000") }
        guard (0...1_000_000_000).contains(releaseMargin) else { throw ValidationError("--release-margin takes 0 to 1000000000") }
    }

    /// What the operator must know of a rebuilt catalog, a line each: where each channel points
    /// now, which clients go back to it (those holding a release the copy missed), and the
    /// number the next release takes.
    static func lines(describing summary: RebuildSummary, copy: String) -> [String] {
        var lines: [String] = []
        let pointing = summary.channels.map { "\($0.name) to release \($0.release)" }.joined(separator: ", ")
        if !pointing.isEmpty {
            let made = summary.newestReleaseCreatedAt.map { ", made \(HTTPDate(secondsSince1970: $0).imfFixdate)" } ?? ""
            lines.append(
                "Clients holding a release newer than release \(summary.newestRelease) (the newest \(copy) holds\(made)) "
                    + "go back at their next poll: \(pointing)."
            )
        }
        lines.append("The next release is numbered \(summary.nextRelease), past any release \(copy) may have missed.")
        return lines
    }
}
