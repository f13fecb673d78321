import DepotClient
import DepotManifest
import DepotPolicy
import Foundation

extension Worker {
    /// Reads the channel document from the first server that answers (``Failover``), checked
    /// as a client checks it, and sets every install on the release its side is; reads each such
    /// release's documents from that server.
    func seed() async throws {
        let servers = fleet.settings.servers
        let attempt: (Int, Bool) async throws -> Failover.Attempt<Void> = { server, _ in
            try await self.seed(from: server)
            return .done(())
        }
        _ = try await Failover.run(Array(servers.indices), name: { servers[$0].description }, attempt)
    }

    private func seed(from server: Int) async throws {
        let table = fleet.table
        let checked = fleet.checked
        let document = try await seedDocument(server: server)
        var releases: [String: UInt16] = [:]
        for index in 0..<table.count {
            let version = fleet.settings.clientVersions[Int(table.version[index])].version
            let side = try RolloutSide.decide(document, bucket: { table.id(index).bucket(salt: $0) }, holding: nil, clientVersion: version)
            if releases[side.release] == nil {
                let release = checked.release(side.release, number: side.number)
                try await seedRelease(side.release, index: release, server: server)
                releases[side.release] = release
            }
            table.held[index] = releases[side.release]!
            if side.number < 64 { table.took[index] |= 1 << UInt64(side.number) }
        }
    }
}

extension Worker {
    /// The channel document of `server`, checked with no floor.
    private func seedDocument(server: Int) async throws -> ChannelDocument {
        let answer = try await get(try TreeObject.channel(fleet.settings.channel), server: server, kind: .poll, address: "127.0.0.1")
        return try await checkChannel(answer, server: server, now: Int64(Date().timeIntervalSince1970), lastAccepted: nil)
    }

    /// Release `id`'s document and every page of it, checked and kept.
    private func seedRelease(_ id: String, index: UInt16, server: Int) async throws {
        let document = try await fetchRelease(id, index: index, server: server, address: "127.0.0.1")
        try await fetchPages(document.pages, server: server, address: "127.0.0.1")
    }
}
