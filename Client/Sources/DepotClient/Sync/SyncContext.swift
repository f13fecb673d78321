import DepotFiles
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the steps of one sync, check, download, apply, seed or revert work with, built once per
/// call from the client's configuration (``DepotClient/context``): the servers, the folder and
/// its cache, state and report queue, the trust configured, the clock, the transport's
/// configuration and the switch (``ReleaseSwitch``). The steps (``SyncAttempt`` and its
/// extensions, the plan, staging, the switch, a seed) take it, never the client:
/// ``DepotClient`` is only the public face.
struct SyncContext: Sendable {
    /// The servers, in the order they are tried.
    let servers: [URL]
    /// The folder, as every write to it goes (``SyncFolder``).
    let folder: SyncFolder
    let configuration: DepotClient.Configuration
    /// Seconds since 1970 now, against which documents' expiry is checked (tests move it).
    let now: @Sendable () -> Int64
    /// The switch's executor, telling each step to the client's fault hook (tests crash there).
    let releaseSwitch: ReleaseSwitch
    /// The configuration of a session of this call (``TransferSession``): made in one place,
    /// ``DepotClient/sessionConfiguration``.
    let sessionConfiguration: @Sendable () -> URLSessionConfiguration

    /// The folder's path, worked out once: a sync builds a local path per file.
    var directoryPath: String { folder.path }
    /// The documents the folder keeps (``ReleaseCache``).
    var cache: ReleaseCache { ReleaseCache(folder: folder) }
    /// What the folder remembers between syncs.
    var state: SyncState { SyncState.load(from: folder) }
}

extension DepotClient {
    /// The context of one call's steps (``SyncContext``), made of this client's configuration.
    var context: SyncContext {
        let client = self
        return SyncContext(
            servers: servers,
            folder: folder,
            configuration: configuration,
            now: now,
            releaseSwitch: ReleaseSwitch(folder: folder, fault: switchFault),
            sessionConfiguration: { client.sessionConfiguration }
        )
    }
}
