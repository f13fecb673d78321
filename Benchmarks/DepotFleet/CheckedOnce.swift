import Crypto
import DepotClient
import DepotHTTP
import DepotManifest
import DepotPolicy
import Synchronization

/// What the fleet checks once and every install then compares against: a channel document's
/// check for a serial floor, release and page documents, the plan between two releases, each
/// object's bytes. Every install still sends its own requests and reads every byte of each
/// answer; an answer equal to bytes checked before by the client's own rules (``TreeReader``,
/// ``ChannelCheck``) passes without its signature or digest computed again: a million
/// Ed25519 verifications of one document would measure the fleet's CPU, not Depot.
final class CheckedOnce: Sendable {
    /// Releases, `ETag`s and serial floors by number, so an install's state is three small
    /// integers (``InstallTable``).
    struct Interned {
        /// A release's id and number; number 0 is none.
        struct Release {
            let id: String
            let number: Int64
        }

        var releases: [Release] = [Release(id: "", number: 0)]
        var releaseIndex: [String: UInt16] = [:]
        var tags: [String] = [""]
        var tagIndex: [String: UInt16] = [:]
        var floors: [ChannelCheck.Accepted?] = [nil]
        var floorIndex: [FloorKey: UInt16] = [:]

        /// The number `key` has in `index`, `value` appended to `values` under a new one when
        /// it has none: the one way a value gets its number.
        static func number<Key: Hashable, Value>(of key: Key, in index: inout [Key: UInt16], values: inout [Value], adding value: Value) -> UInt16 {
            if let number = index[key] { return number }
            let number = UInt16(values.count)
            values.append(value)
            index[key] = number
            return number
        }
    }

    /// A serial floor as a dictionary key.
    struct FloorKey: Hashable {
        let serial: Int64
        let release: String
        let root: Int64?
    }

    /// A channel document that passed, for installs with one floor.
    struct ChannelEntry: Sendable {
        let document: ChannelDocument
        /// The floor it leaves: an index of ``Interned/floors``.
        let floor: UInt16
        /// When it expires, seconds since 1970: checked at every use.
        let expires: Int64
    }

    private struct ChannelKey: Hashable {
        let bytes: [UInt8]
        let floor: UInt16
    }

    /// A move between two releases: the objects an install fetches once it has the release
    /// document and the changed pages.
    struct Transition: Sendable {
        /// Each file: the ways the client's plan gives that need no local file's bytes (a listed
        /// patch, a requested patch, the whole file), best first, each an object and the digest
        /// of its bytes (`nil`: a requested patch, whose product the client checks).
        var files: [[Way]]

        struct Way: Sendable {
            let object: TreeObject
            let sha256: String?
        }
    }

    private struct TransitionKey: Hashable {
        let from: UInt16
        let to: UInt16
    }

    private struct State {
        var interned = Interned()
        var channels: [ChannelKey: Result<ChannelEntry, SyncError>] = [:]
        /// The newest document seen, by serial: to tell a rollback from a completion.
        var newest: ChannelDocument?
        /// Releases the channel rolled back, by index, and the simulated second it was first seen.
        var rolledBack: [UInt16: Double] = [:]
        var documents: [String: [UInt8]] = [:]
        var releases: [UInt16: ReleaseDocument] = [:]
        var pages: [String: ReleasePage] = [:]
        var transitions: [TransitionKey: Transition] = [:]
        /// Objects checked, by server and path: their bytes (up to ``maximumKeptBytes``) or length.
        var objects: [String: (bytes: [UInt8]?, length: Int)] = [:]
    }

    static let maximumKeptBytes = 8 << 20

    private let state = Mutex(State())

    // MARK: - Interned values

    func release(_ id: String, number: Int64) -> UInt16 {
        state.withLock { state in
            Interned.number(of: id, in: &state.interned.releaseIndex, values: &state.interned.releases, adding: .init(id: id, number: number))
        }
    }

    func tag(_ tag: String?) -> UInt16 {
        guard let tag else { return 0 }
        return state.withLock { state in
            Interned.number(of: tag, in: &state.interned.tagIndex, values: &state.interned.tags, adding: tag)
        }
    }

    var interned: Interned { state.withLock { $0.interned } }

    func tagText(_ index: UInt16) -> String? { index == 0 ? nil : state.withLock { $0.interned.tags[Int(index)] } }

    // MARK: - Channel documents

    /// The checked document `bytes` for an install whose floor is `floor`, checked by
    /// `check` (the client's walk) once per document and floor; its expiry against `now`
    /// (seconds since 1970) at every use.
    func channel(
        _ bytes: [UInt8],
        floor: UInt16,
        now: Int64,
        simulated: Double,
        check: (ChannelCheck.Accepted?) async throws -> ChannelDocument
    ) async throws -> ChannelEntry {
        let key = ChannelKey(bytes: bytes, floor: floor)
        if let known = state.withLock({ $0.channels[key] }) {
            let entry = try known.get()
            guard entry.expires > now else { throw SyncError(.untrusted, "the channel document expired (\(entry.document.expires))") }
            return entry
        }
        let accepted = state.withLock { $0.interned.floors[Int(floor)] }
        let result: Result<ChannelEntry, SyncError>
        do {
            let document = try await check(accepted)
            let after = ChannelCheck.Accepted(serial: document.serial, release: document.release, root: document.root)
            let floorKey = FloorKey(serial: after.serial, release: after.release, root: after.root)
            let index = state.withLock { state in
                Interned.number(of: floorKey, in: &state.interned.floorIndex, values: &state.interned.floors, adding: after)
            }
            let expires = HTTPDate(parsing: document.expires, now: HTTPDate(secondsSince1970: now))?.secondsSince1970 ?? 0
            result = .success(ChannelEntry(document: document, floor: index, expires: expires))
            noteNewest(document, simulated: simulated)
        } catch let error as SyncError {
            result = .failure(error)
        }
        state.withLock { $0.channels[key] = result }
        return try result.get()
    }

    /// Keeps the newest document, and notes a rollback when a rollout's release gives way to an
    /// older one.
    private func noteNewest(_ document: ChannelDocument, simulated: Double) {
        state.withLock { state in
            guard document.serial > state.newest?.serial ?? .min else { return }
            if let rollout = state.newest?.rollout, document.rollout?.release != rollout.release, document.release != rollout.release,
                let index = state.interned.releaseIndex[rollout.release], state.rolledBack[index] == nil
            {
                state.rolledBack[index] = simulated
            }
            state.newest = document
        }
    }

    /// The simulated second release `index` was rolled back, if it was.
    func rolledBack(_ index: UInt16) -> Double? { state.withLock { $0.rolledBack[index] } }

    // MARK: - Release and page documents

    /// Whether `bytes` are the bytes checked before for `object`.
    func isKnown(_ object: TreeObject, bytes: [UInt8]) -> Bool { state.withLock { $0.documents[object.path] == bytes } }

    func keep(_ object: TreeObject, bytes: [UInt8]) { state.withLock { $0.documents[object.path] = bytes } }

    func keep(release index: UInt16, _ document: ReleaseDocument) { state.withLock { $0.releases[index] = document } }

    func keep(page sha256: String, _ page: ReleasePage) { state.withLock { $0.pages[sha256] = page } }

    func releaseDocument(_ index: UInt16) -> ReleaseDocument? { state.withLock { $0.releases[index] } }

    func page(_ sha256: String) -> ReleasePage? { state.withLock { $0.pages[sha256] } }

    // MARK: - Transitions and objects

    func transition(from: UInt16, to: UInt16, make: () throws -> Transition) throws -> Transition {
        let key = TransitionKey(from: from, to: to)
        if let known = state.withLock({ $0.transitions[key] }) { return known }
        let made = try make()
        state.withLock { $0.transitions[key] = made }
        return made
    }

    /// Whether `answer` of `object` from `server` is good: the first such answer is checked
    /// against `sha256`, later ones against its bytes (or length, above ``maximumKeptBytes``).
    func checkObject(_ object: TreeObject, server: Int, sha256: String?, body: [UInt8]) -> Bool {
        let key = "\(server) \(object.path)"
        if let known = state.withLock({ $0.objects[key] }) {
            return known.bytes.map { $0 == body } ?? (known.length == body.count)
        }
        if let sha256, Hex.string(SHA256.hash(data: body)) != sha256 { return false }
        state.withLock { $0.objects[key] = (body.count <= Self.maximumKeptBytes ? body : nil, body.count) }
        return true
    }
}
