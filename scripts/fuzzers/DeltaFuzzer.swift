// libFuzzer entry point for the VCDIFF decoder, compiled together with Client/Sources/DepotDelta by
// scripts/fuzz delta. The seed corpus is Tests/DepotDeltaTests/Corpus, which the test suite also
// runs; the source every input is decoded against is that folder's source.bin.
import Foundation

private let source: [UInt8] = {
    let path = ProcessInfo.processInfo.environment["DEPOT_FUZZ_SOURCE"] ?? "Tests/DepotDeltaTests/Corpus/source.bin"
    return (try? Array(Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecode(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let delta = UnsafeRawBufferPointer(start: data, count: count)
    var output: [UInt8] = []
    source.withUnsafeBytes { source in
        do {
            try VCDIFFDecoder.decode(delta, source: source, into: &output, limits: .init(maximumWindowSize: 1 << 20, maximumTargetSize: 4 << 20))
        } catch is VCDIFFError {
        } catch {
            fatalError("the decoder threw something other than a VCDIFFError: \(error)")
        }
    }
    return 0
}
