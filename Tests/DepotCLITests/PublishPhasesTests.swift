import DepotTestSupport
import Foundation
import Testing

/// `depot publish` tells its phases after the upload (issue 56): a line each when not on a
/// terminal, so that a CI log shows where the time goes. (`InProcessCLI.run` reads standard output
/// and error as one log, as a CI job does.)
@Suite("depot publish: phases")
struct PublishPhasesTests {
    @Test("not on a terminal: a line as the upload ends and one as the commit ends, before the summary; none with --json")
    func phaseLines() async throws {
        try await InProcessCLI.withServer { root, server in
            try root.write(Fixture.pseudoRandom(count: 3 << 20, seed: 4), to: "big.bin")
            try root.write(Data("small\n".utf8), to: "small.txt")
            let result = try await InProcessCLI.run(["publish", "big.bin", "small.txt", "--server", server], in: root)
            #expect(result.status == 0, "\(result.errors)")
            let lines = result.output.split(separator: "\n").map(String.init).filter { $0.hasPrefix("depot publish: ") }
            #expect(lines.count == 2, "\(result.output)")
            #expect(lines.first?.hasPrefix("depot publish: uploaded 2 files (3.1 MB) in ") == true, "\(result.output)")
            #expect(lines.first?.hasSuffix("committing the release on stable (2 files listed): the server indexes and patches new files") == true)
            #expect(lines.last?.hasPrefix("depot publish: committed in ") == true, "\(result.output)")
            let committed = try #require(result.output.range(of: "committed in"))
            #expect(committed.lowerBound < (try #require(result.output.range(of: "release 1 on stable"))).lowerBound)
            #expect(!result.output.contains("\u{1B}["), "no terminal codes in a log")

            try root.write(Data("changed\n".utf8), to: "small.txt")
            let json = try await InProcessCLI.run(["publish", "small.txt", "--server", server, "--json"], in: root)
            #expect(json.status == 0 && !json.output.contains("depot publish:"), "\(json.output)")
        }
    }
}
