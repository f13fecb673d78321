import DepotManifest
import DepotPolicy

extension SyncContext {
    /// The side of this install for `document` (``RolloutSide/decide(_:bucket:holding:clientVersion:)``);
    /// the install id is made when a rollout first needs it.
    func rolloutSide(of document: ChannelDocument, holding: String?) throws -> RolloutSide {
        let version = configuration.clientVersion
        let install = document.rollout == nil ? nil : try installID()
        do {
            return try RolloutSide.decide(document, bucket: { salt in install?.bucket(salt: salt) ?? 0 }, holding: holding, clientVersion: version)
        } catch {
            throw SyncError(error)
        }
    }
}
