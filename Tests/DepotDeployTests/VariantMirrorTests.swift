import DepotClient
import DepotTestSupport
import Foundation
import Testing

/// Brotli and zstd variants at the edge (issue 45): `depot export` writes them, the shipped
/// `deploy/nginx/static-mirror.conf` serves them (brotli through Debian's brotli-static module,
/// zstd through its map), and a client syncs through it in the smallest one.
@Suite("Variants through the static mirror")
struct VariantMirrorTests {
    /// A server that makes both variants, at quick settings.
    static let variants = [
        "DEPOT_VARIANTS_BROTLI": "true", "DEPOT_VARIANTS_BROTLI_QUALITY": "9", "DEPOT_VARIANTS_BROTLI_WINDOW": "22",
        "DEPOT_VARIANTS_ZSTD": "true", "DEPOT_VARIANTS_ZSTD_LEVEL": "12", "DEPOT_VARIANTS_ZSTD_LONG_WINDOW": "0",
        "DEPOT_VARIANTS_BACKGROUND": "false",
    ]

    @Test("exported variants: nginx negotiates a file's URL for HTTP clients, and a cold client takes the smallest by its own URL")
    func throughNginx() async throws {
        try await StaticExportTests.Stage.with { stage in
            try stage.root.write(Fixture.catalogRows, to: "tree/catalog.db")
            try await stage.serving(Self.variants) { origin in try await stage.publish("tree", to: origin) }
            let export = try await stage.export(to: "export", Self.variants)
            #expect(export.status == 0, "\(export.log)")
            let sha256 = Fixture.sha256(Fixture.catalogRows)
            let blobs = stage.root.appendingPathComponent("export/blobs")
            for suffix in ["", ".gz", ".br", ".zst"] {
                #expect(FileManager.default.fileExists(atPath: blobs.appendingPathComponent(sha256 + suffix).path), "blobs/\(sha256)\(suffix)")
            }
            let sizes = try ["br", "zst", "gz"].map { suffix in
                (suffix, try Data(contentsOf: blobs.appendingPathComponent("\(sha256).\(suffix)")).count)
            }

            try await Nginx.serving(export: stage.root.appendingPathComponent("export")) { nginx in
                let report = try await stage.sync("cold", from: nginx.url(""))
                let file = try #require(report.files.first { $0.path == "catalog.db" })
                let smallest = try #require(sizes.min { $0.1 < $1.1 })
                #expect(file.encoding == (smallest.0 == "zst" ? "zstd" : smallest.0 == "gz" ? "gzip" : "br"), "\(file)")
                #expect(file.bytesTransferred == Int64(smallest.1), "\(file)")
                #expect(try stage.holdsTree("cold", "tree"))
                let fetched = nginx.requests.filter { $0.path.hasPrefix("/blobs/\(sha256)") }.map(\.path)
                #expect(fetched == ["/blobs/\(sha256).\(smallest.0)"], "the variant by its own URL, once: \(fetched)")

                // HTTP clients: the file's URL, negotiated by nginx; curl decodes and checks.
                for (accept, encoding) in [("br", "br"), ("zstd", "zstd"), ("gzip", "gzip"), ("br;q=0, zstd", "zstd"), ("identity", nil)] {
                    let headers = try await runCurl([
                        "-sS", "-D", "-", "-o", "/dev/null", "-H", "Accept-Encoding: \(accept)", nginx.url("/blobs/\(sha256)"),
                    ])
                    let text = String(decoding: headers.standardOutput, as: UTF8.self).lowercased()
                    #expect(text.contains("vary: accept-encoding"), "\(accept): \(text)")
                    if let encoding {
                        #expect(text.contains("content-encoding: \(encoding)"), "\(accept): \(text)")
                    } else {
                        #expect(!text.contains("content-encoding"), "\(accept): \(text)")
                    }
                }
                try await withTemporaryDirectory { folder in
                    let output = folder.appendingPathComponent("catalog")
                    _ = try await runCurl(["-sS", "--compressed", "-o", output.path, nginx.url("/blobs/\(sha256)")])
                    #expect(try Data(contentsOf: output) == Fixture.catalogRows)
                    let ranged = try await runCurl([
                        "-sS", "-D", "-", "-o", "/dev/null", "-H", "Accept-Encoding: zstd", "-r", "0-9", nginx.url("/blobs/\(sha256)"),
                    ])
                    let text = String(decoding: ranged.standardOutput, as: UTF8.self)
                    #expect(text.hasPrefix("HTTP/1.1 206") && text.contains("Content-Range: bytes 0-9/"), "ranges of the zstd variant: \(text)")
                }
            }
        }
    }

    @Test(
        "a hostile mirror's brotli pack, garbage or a bomb, is dropped for the pack's ranges: every file still comes, checked",
        arguments: ["garbage", "bomb"]
    )
    func hostileBrotliPack(kind: String) async throws {
        try await StaticExportTests.Stage.with { stage in
            for index in 0..<200 {
                try stage.root.write(Data("{\"id\": \(index), \"name\": \"stop \(index)\", \"lines\": [1, 2, 3]}\n".utf8), to: "tree/\(index).json")
            }
            try await stage.serving { origin in try await stage.publish("tree", to: origin) }
            #expect(try await stage.export(to: "export").status == 0)
            let packs = try FileManager.default.contentsOfDirectory(atPath: stage.path("export/packs")).filter { $0.hasSuffix(".br") }
            #expect(!packs.isEmpty, "the export holds brotli packs")
            let hostile: Data
            if kind == "bomb" {
                // 16 MB of zeros in a few bytes: far more than the page's files.
                let zeros = try stage.root.write(Data(count: 16 << 20), to: "zeros")
                hostile = try await ChildProcess.run("brotli", ["-c", zeros.path]).standardOutput
            } else {
                hostile = Fixture.pseudoRandom(count: 500, seed: 5)
            }
            for pack in packs { try hostile.write(to: stage.root.appendingPathComponent("export/packs/\(pack)")) }
            try await Nginx.serving(export: stage.root.appendingPathComponent("export")) { nginx in
                let report = try await stage.sync("cold", from: nginx.url(""))
                #expect(report.files.count == 200 && report.files.allSatisfy { $0.outcome == .packed && $0.encoding != "br" })
                #expect(try stage.holdsTree("cold", "tree"))
                let asked = nginx.requests.filter { $0.path.hasPrefix("/packs/") }.map(\.path)
                #expect(asked.contains { $0.hasSuffix(".br") } && asked.contains { !$0.hasSuffix(".br") }, "\(asked)")
            }
        }
    }
}
