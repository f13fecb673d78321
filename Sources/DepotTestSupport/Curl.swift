import Foundation

/// What a `curl` run printed and how it ended.
public struct CurlResult: Sendable {
    public let exitCode: Int32
    public let standardOutput: Data
    public let standardError: String
}

/// Runs the real `curl` with `arguments`, waiting for it without blocking a thread of the
/// cooperative pool (the server under test needs them).
public func runCurl(_ arguments: [String], in directory: URL? = nil) async throws -> CurlResult {
    let result = try await ChildProcess.run("curl", ["--silent", "--show-error"] + arguments, in: directory)
    return CurlResult(
        exitCode: result.status,
        standardOutput: result.standardOutput,
        standardError: String(decoding: result.standardError, as: UTF8.self)
    )
}
