import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// zsync 0.6.2 (Debian's zsync and zsyncmake) against a file of the public folder: it fetches
/// the blocks it lacks with pipelined multi-range GETs, and an HTTP/1.0 GET for the `.zsync`.
@Suite("zsync against a live server")
struct ZsyncTests {
    @Test("zsync rebuilds a file from a damaged copy in a few requests, and the result is the file")
    func zsyncFromDamagedCopy() async throws {
        let file = Data(Fixture.noise + Fixture.text + Fixture.noise.reversed())
        try await withTemporaryDirectory { work in
            try file.write(to: work.appendingPathComponent("file.bin"))
            // A relative URL: resolved against the .zsync's own, whatever port the server gets.
            let made = try await ChildProcess.run("zsyncmake", ["-b", "2048", "-u", "file.bin", "-o", "file.bin.zsync", "file.bin"], in: work)
            #expect(made.status == 0, "\(String(decoding: made.standardError, as: UTF8.self))")
            let control = try Data(contentsOf: work.appendingPathComponent("file.bin.zsync"))
            try await Self.zsync(file: file, control: control)
        }
    }

    static func zsync(file: Data, control: Data) async throws {
        let prepare: (URL) throws -> Void = { folder in
            try file.write(to: folder.appendingPathComponent("file.bin"))
            try control.write(to: folder.appendingPathComponent("file.bin.zsync"))
        }
        try await LiveServer.with(prepare: prepare) { server in
            try await withTemporaryDirectory { folder in
                var damaged = file
                for offset in stride(from: 0, to: damaged.count, by: 40_000) { damaged[offset..<offset + 100] = Data(repeating: 0x78, count: 100) }
                let seed = try folder.write(damaged, to: "seed.bin")
                let output = folder.appendingPathComponent("out.bin")
                let result = try await ChildProcess.run(
                    "zsync",
                    ["-q", "-i", seed.path, "-o", output.path, server.url("/file.bin.zsync")],
                    in: folder,
                    // Hang guard: slowest seen 0.6 s under two busy loops (the whole test).
                    timeout: .seconds(60)
                )
                #expect(result.status == 0, "\(String(decoding: result.standardError, as: UTF8.self))")
                #expect(try Data(contentsOf: output) == file)
                // A few multi-range requests, not one a block (nor a million, as zsync made
                // when it refused a multipart body without a CRLF before its first delimiter).
                let ranged = server.requests.total(pathPrefix: "/file.bin", pathSuffix: ".bin")
                #expect((1...10).contains(ranged), "\(ranged) requests for the file")
            }
        }
    }
}
