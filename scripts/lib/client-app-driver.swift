// scripts/test-client's stand-in for docs/app-developers.md's app's SwiftUI part, which Linux cannot build: two
// launches of the app against the folder given. The first applies what a previous run staged,
// checks and downloads (the guide's policy applies at the next launch); the second launch
// applies it. Prints the release held.
import DepotClient
import Foundation

let folder = URL(fileURLWithPath: CommandLine.arguments[1])
for launch in 1...2 {
    let updater = makeUpdater(folder: folder)
    if let applied = try updater.applyPendingAtLaunch() { print("launch \(launch): applied release \(applied.number)") }
    let state = await updater.checkNow()
    print("launch \(launch): \(state)")
    if case .failed(let error) = state {
        print("launch \(launch): \(error.localizedDescription) (\(error))")
        exit(1)
    }
}
print("holds release \(makeUpdater(folder: folder).client.currentRelease?.number ?? 0)")
