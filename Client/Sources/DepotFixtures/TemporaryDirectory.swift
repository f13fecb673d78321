import Foundation

/// A fresh folder under the system's temporary folder, removed when `body` returns.
public func withTemporaryDirectory<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("depot-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

extension URL {
    /// Writes `data` to the file `name` below this folder, creating folders on the way.
    @discardableResult
    public func write(_ data: Data, to name: String, modified: Date? = nil) throws -> URL {
        let file = appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        if let modified {
            try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: file.path)
        }
        return file
    }
}
