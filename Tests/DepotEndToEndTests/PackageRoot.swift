import Foundation

/// The server package's root folder (this file is `Tests/DepotEndToEndTests/PackageRoot.swift`):
/// where the end-to-end suites find `deploy/`, `scripts/` and their browser script.
enum PackageRoot {
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
