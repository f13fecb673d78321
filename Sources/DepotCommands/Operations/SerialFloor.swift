import ArgumentParser
import DepotManifest

/// `--not-before-serial CHANNEL=N` of `depot import`: the lowest serial a channel's document may
/// have to be imported. A source behind its origin (a mirror that never saw a rollback) holds an
/// older document, still signed and unexpired, that may name a release the origin withdrew;
/// signed again at a higher serial it would take clients back to it.
struct SerialFloor: ExpressibleByArgument, Sendable, Equatable {
    let channel: String
    let serial: Int64

    init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, ChannelName.problem(parts[0]) == nil, let serial = Int64(parts[1]), serial >= 1 else { return nil }
        (channel, self.serial) = (parts[0], serial)
    }

    /// Refuses, in one line, a channel of `mirrored` whose document is below its floor, and a
    /// floor for a channel that was not copied.
    static func check(_ mirrored: [MirroredChannel], against floors: [SerialFloor]) throws {
        for floor in floors {
            guard let taken = mirrored.first(where: { $0.channel == floor.channel }) else {
                throw CommandFailure("--not-before-serial \(floor.channel)=\(floor.serial): the channel \(floor.channel) is not imported")
            }
            guard taken.document.serial >= floor.serial else {
                throw CommandFailure(
                    "the source's \(floor.channel) is at serial \(taken.document.serial) (release \(taken.document.number)), below --not-before-serial "
                        + "\(floor.channel)=\(floor.serial): it is behind its origin and may name a release the origin withdrew; nothing imported"
                )
            }
        }
    }
}
