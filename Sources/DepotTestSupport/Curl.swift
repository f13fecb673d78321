import Foundation

/// What a `curl` run printed and how it ended.
public struct CurlResult: Sendable {
    public let exitCode: Int32
    public let standardOutput: Data
    public let standardError: String
}

/// Runs the real `curl` with `arguments`, waiting for it without blocking a thread of the
/// cooperative pool (the server under test needs them). Standard output is read after curl
/// exits, so send bodies over 64 KiB to a file with `-o`.
public func runCurl(_ arguments: [String], in directory: URL? = nil) async throws -> CurlResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["curl", "--silent", "--show-error"] + arguments
    if let directory { process.currentDirectoryURL = directory }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    let exitCode: Int32 = try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
        do {
            try process.run()
        } catch {
            process.terminationHandler = nil
            continuation.resume(throwing: error)
        }
    }
    return CurlResult(
        exitCode: exitCode,
        standardOutput: output.fileHandleForReading.readDataToEndOfFile(),
        standardError: String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    )
}
