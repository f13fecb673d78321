// libFuzzer entry point for request paths, request fields, the client's release page and channel decoding and its
// reading of multipart/byteranges bodies, compiled by scripts/fuzz (paths, fields, pages, multipart) together with Client/Sources/DepotHTTP, Client/Sources/DepotManifest and the
// checks in Client/Tests/DepotHTTPTests/InputHarness.swift. DEPOT_FUZZ_TARGET picks the check.
import Foundation

private let check: ([UInt8]) throws -> Void = {
    switch ProcessInfo.processInfo.environment["DEPOT_FUZZ_TARGET"] {
    case "paths": InputHarness.paths
    case "fields": InputHarness.fields
    case "pages": InputHarness.pages
    case "multipart": InputHarness.multipart
    default: fatalError("DEPOT_FUZZ_TARGET must be paths, fields, pages or multipart")
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
