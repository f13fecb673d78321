import DepotAPI
import DepotConnection
import DepotHTTP
import DepotManifest
import DepotStore
import Foundation
import Synchronization

/// The one place channel documents are made: it reads where each channel points in the catalog,
/// builds the document (release, rollout, fallbacks), signs it (``ChannelSigner``), and keeps the
/// newest of each channel. Each new set goes to its subscribers (``updates()``): the serving
/// cache reads the documents kept (``document(named:)``) the moment they are made, so a publish
/// answers with them served; the export (``ExportFollower``) follows the stream at its own pace,
/// so no publish waits for the export's fsyncs.
final class ChannelDocuments: Sendable {
    /// A channel's signed document, as served and as exported.
    struct Signed: Sendable {
        let serial: Int64
        /// Seconds since 1970 at which it expires.
        let expires: Int64
        /// `/channels/{name}`.
        let resource: Resource
        /// As the export writes it.
        let exported: StaticExport.Channel
    }

    let releases: ReleaseStore
    let signer: ChannelSigner
    /// `Cache-Control` of the documents served.
    let cacheControl: String?
    private let current = Mutex<[String: Signed]>([:])
    private let subscribers = Mutex<[UUID: AsyncStream<[StaticExport.Channel]>.Continuation]>([:])

    init(releases: ReleaseStore, signer: ChannelSigner, cacheControl: String?) {
        self.releases = releases
        self.signer = signer
        self.cacheControl = cacheControl
    }

    /// The document of `name`, if the channel has a release.
    func document(named name: String) -> Signed? { current.withLock { $0[name] } }

    /// Every channel as the export writes it, by name.
    var exported: [StaticExport.Channel] { current.withLock { $0.values.map(\.exported) }.sorted { $0.name < $1.name } }

    /// Each new set of documents, as the export writes them: the set kept now first, then each
    /// one made after. A subscriber that falls behind gets the newest set only.
    func updates() -> AsyncStream<[StaticExport.Channel]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [StaticExport.Channel].self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.subscribers.withLock { $0.removeValue(forKey: id) } }
        continuation.yield(exported)
        return stream
    }

    /// Reads where each channel points and makes its document, signed and valid until
    /// ``ChannelSigner`` says. A document replaces the one kept only when it is for a newer serial
    /// or a later expiry, so overlapping reloads never go back. Then the subscribers get the set.
    func reload(now: HTTPDate = .now()) async throws {
        let expires = signer.expiry(now: now.secondsSince1970)
        for channel in try await releases.channels() {
            let document = try signer.sign(try await unsigned(channel, expires: expires))
            let bytes = Array(try APIJSON.encoder.encode(document)) + [UInt8(ascii: "\n")]
            let signed = Signed(
                serial: channel.serial,
                expires: expires,
                resource: try PublishedContent.jsonResource(
                    bytes,
                    lastModified: HTTPDate(secondsSince1970: channel.updatedAt),
                    lastModifiedIsStrong: false,
                    cacheControl: cacheControl
                ),
                exported: StaticExport.Channel(name: channel.name, releases: document.namedReleases, document: bytes)
            )
            current.withLock { documents in
                if let kept = documents[channel.name], (kept.serial, kept.expires) >= (channel.serial, expires) { return }
                documents[channel.name] = signed
            }
        }
        let set = exported
        for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.yield(set) }
    }

    /// The document of `channel`, to be signed.
    private func unsigned(_ channel: ChannelState, expires: Int64) async throws -> ChannelDocument {
        let release = channel.release
        let fallbacks = try await releases.fallbacks(of: channel)
        return ChannelDocument(
            channel: channel.name,
            release: release.id,
            number: release.number,
            serial: channel.serial,
            expires: HTTPDate(secondsSince1970: expires).imfFixdate,
            critical: release.critical ? true : nil,
            minimumClientVersion: release.minimumClientVersion,
            rollout: channel.rollout.map { rollout in
                ChannelDocument.Rollout(
                    release: rollout.release,
                    number: rollout.releaseNumber ?? 0,
                    percent: rollout.percent,
                    salt: rollout.salt,
                    critical: rollout.releaseCritical ? true : nil,
                    minimumClientVersion: rollout.releaseMinimumClientVersion
                )
            },
            fallbacks: fallbacks.isEmpty
                ? nil : fallbacks.map { .init(release: $0.id, number: $0.number, minimumClientVersion: $0.minimumClientVersion) }
        )
    }
}
