import DepotManifest
import Foundation
import Testing

@testable import DepotClient

/// Issue 57: the pure rules of a sync folder: a channel's serial floor is kept for every channel
/// the folder has followed (defect 24), and a layout refuses the other both ways (defect 18).
@Suite("Sync folder rules")
struct FolderRulesTests {
    static func release(_ channel: String, serial: Int64, id: Character) -> HeldRelease {
        HeldRelease(
            id: String(repeating: id, count: 64),
            number: serial,
            channel: channel,
            serial: serial,
            root: nil,
            signers: nil,
            files: 1,
            signature: .verified
        )
    }

    @Test("the floor of a channel outlives a switch to another; a state from before the floors keeps its release's channel")
    func floors() {
        var state = SyncState()
        #expect(state.floor(of: "stable") == nil)
        state.hold(Self.release("stable", serial: 7, id: "a"))
        state.hold(Self.release("beta", serial: 2, id: "b"))
        #expect(state.floor(of: "stable")?.serial == 7 && state.floor(of: "stable")?.release == String(repeating: "a", count: 64))
        #expect(state.floor(of: "beta")?.serial == 2)
        state.hold(Self.release("stable", serial: 9, id: "c"))
        #expect(state.floor(of: "stable")?.serial == 9 && state.floor(of: "beta")?.serial == 2)

        var old = SyncState()
        old.release = Self.release("stable", serial: 5, id: "d")
        #expect(old.floor(of: "stable")?.serial == 5)
        old.hold(Self.release("beta", serial: 1, id: "e"))
        #expect(old.floor(of: "stable")?.serial == 5, "the release held before the floors were kept is stable's floor")
    }

    @Test("a layout refuses the other, both ways", arguments: FolderLayout.allCases)
    func layouts(configured: FolderLayout) {
        for found in FolderLayout.allCases {
            let refusal = FolderLayout.refusal(configured: configured, found: found, release: 4, in: "/f")
            #expect((refusal == nil) == (configured == found), "\(configured) on \(found)")
            #expect(refusal.map { $0.code == .io && $0.message.contains("release 4") } ?? true)
        }
        #expect(FolderLayout.found(currentIsLink: true) == .releaseFolders && FolderLayout.found(currentIsLink: false) == .inPlace)
    }
}
