// libFuzzer entry point for request paths, request fields and the client's release page and channel decoding,
// compiled by scripts/fuzz (paths, fields, pages) together with Sources/DepotHTTP, Sources/DepotManifest and the
// checks in Tests/DepotHTTPTests/InputHarness.swift. DEPOT_FUZZ_TARGET picks the check.
import Foundation

private let check: ([UInt8]) throws -> Void = {
    switch ProcessInfo.processInfo.environment["DEPOT_FUZZ_TARGET"] {
    case "paths": InputHarness.paths
    case "fields": InputHarness.fields
    case "pages": InputHarness.pages
    default: fatalError("DEPOT_FUZZ_TARGET must be paths, fields or pages")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInput(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    do {
        try check(Array(UnsafeBufferPointer(start: data, count: count)))
    } catch {
        fatalError("\(error)")
    }
    return 0
}
