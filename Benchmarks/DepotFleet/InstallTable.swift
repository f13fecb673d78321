import DepotClient
import DepotHTTP

/// Every install's state, one column per field, allocated once: about 60 bytes an install, so a
/// million fit in a few tens of MiB. An install is worked on by one worker at a time (the
/// ``Schedule`` hands it out, ``busy`` keeps it), so its fields need no lock; the status line
/// reads them while workers write (a count off by the installs in flight).
final class InstallTable: @unchecked Sendable {
    let count: Int
    /// The install id's 128 bits (``InstallID``), kept as two words, not a string a piece.
    let idHigh: UnsafeMutableBufferPointer<UInt64>
    let idLow: UnsafeMutableBufferPointer<UInt64>
    /// The release held: an index of ``Interned/releases``.
    let held: UnsafeMutableBufferPointer<UInt16>
    /// The channel document's `ETag` last taken: an index of ``Interned/tags``, 0 none.
    let entityTag: UnsafeMutableBufferPointer<UInt16>
    /// The last document accepted (the serial floor): an index of ``Interned/floors``, 0 none.
    let floor: UnsafeMutableBufferPointer<UInt16>
    /// The app version: an index of ``FleetSettings/clientVersions``.
    let version: UnsafeMutableBufferPointer<UInt8>
    /// The network the install's requests come from (``NetworkMix``).
    let network: UnsafeMutableBufferPointer<UInt32>
    /// Release numbers (below 64) the install ever switched to, a bit each.
    let took: UnsafeMutableBufferPointer<UInt64>
    /// Reports not yet delivered, at most two releases' (``PendingReports``).
    let pending: UnsafeMutableBufferPointer<PendingReports>
    /// The server index that answered its last poll.
    let server: UnsafeMutableBufferPointer<UInt8>
    /// Polls made since the release it holds was rolled back (0: not rolled back).
    let pollsSinceRollback: UnsafeMutableBufferPointer<UInt8>
    let busy: UnsafeMutableBufferPointer<Bool>

    init(count: Int) {
        self.count = count
        func column<T>(_ value: T) -> UnsafeMutableBufferPointer<T> {
            let column = UnsafeMutableBufferPointer<T>.allocate(capacity: count)
            column.initialize(repeating: value)
            return column
        }
        idHigh = column(0)
        idLow = column(0)
        held = column(0)
        entityTag = column(0)
        floor = column(0)
        version = column(0)
        network = column(0)
        took = column(0)
        pending = column(PendingReports())
        server = column(0)
        pollsSinceRollback = column(0)
        busy = column(false)
    }

    deinit {
        for pointer in [idHigh, idLow, took] as [UnsafeMutableBufferPointer<UInt64>] { pointer.deallocate() }
        held.deallocate()
        entityTag.deallocate()
        floor.deallocate()
        version.deallocate()
        network.deallocate()
        pending.deallocate()
        server.deallocate()
        pollsSinceRollback.deallocate()
        busy.deallocate()
    }

    /// Install `index`'s id, as the client keeps it.
    func id(_ index: Int) -> InstallID {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for word in [idHigh[index], idLow[index]] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return InstallID(Hex.string(bytes))!
    }
}

/// The reports an install holds until the report server takes them: for at most two releases
/// (the client's queue holds 100; a fleet install never has more than two releases' worth),
/// each a release index and the kinds, a bit each.
struct PendingReports: Sendable {
    enum Kind: UInt8, CaseIterable {
        case applied = 1
        case healthy = 2
        case failed = 4

        var name: String {
            switch self {
            case .applied: "applied"
            case .healthy: "healthy"
            case .failed: "failed"
            }
        }
    }

    var releases: (UInt16, UInt16) = (0, 0)
    var kinds: (UInt8, UInt8) = (0, 0)

    var isEmpty: Bool { kinds.0 == 0 && kinds.1 == 0 }

    var count: Int { kinds.0.nonzeroBitCount + kinds.1.nonzeroBitCount }

    /// Adds `kind` for `release`; returns how many reports an older release's slot lost to it.
    mutating func add(_ kind: Kind, release: UInt16) -> Int {
        if releases.0 == release, kinds.0 != 0 {
            kinds.0 |= kind.rawValue
            return 0
        }
        if releases.1 == release, kinds.1 != 0 {
            kinds.1 |= kind.rawValue
            return 0
        }
        if kinds.0 == 0 {
            (releases.0, kinds.0) = (release, kind.rawValue)
            return 0
        }
        if kinds.1 == 0 {
            (releases.1, kinds.1) = (release, kind.rawValue)
            return 0
        }
        let dropped = kinds.0.nonzeroBitCount
        (releases.0, kinds.0) = (releases.1, kinds.1)
        (releases.1, kinds.1) = (release, kind.rawValue)
        return dropped
    }

    /// Each report: its release index and kind.
    var reports: [(release: UInt16, kind: Kind)] {
        [(releases.0, kinds.0), (releases.1, kinds.1)].flatMap { release, bits in
            Kind.allCases.filter { bits & $0.rawValue != 0 }.map { (release, $0) }
        }
    }
}
