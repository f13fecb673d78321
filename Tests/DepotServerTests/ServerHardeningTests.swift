import Configuration
import DepotHTTP
import DepotServer
import DepotStore
import DepotTestSupport
import Foundation
import Testing
import _NIOFileSystem

/// Doors that must stay shut whatever the configuration or the peer: empty or odd tokens, and a
/// version too large to patch from, in process. `/metrics` by address is ClientAddressTests',
/// the `Date` an answer carries ConnectionStreamingTests' (the connection's).
@Suite("Server hardening")
struct ServerHardeningTests {
    static func reader(_ values: [AbsoluteConfigKey: ConfigValue]) -> ConfigReader {
        ConfigReader(provider: InMemoryProvider(values: values))
    }

    @Test(
        "an empty or malformed token is refused at start-up, wherever it comes from",
        arguments: [[""], ["good", ""], ["\u{A0}"], ["has space"], ["caf\u{E9}"]]
    )
    func badConfiguredTokens(tokens: [String]) throws {
        let values: [AbsoluteConfigKey: ConfigValue] = ["publish.tokens": .init(.stringArray(tokens), isSecret: true)]
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(reader: Self.reader(values)) }
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration(reader: Self.reader(["metrics.token": .init(.string(tokens.last!), isSecret: true)]))
        }
    }

    @Test("a token file with no token, or a token with a Unicode space, is refused", arguments: ["\n  \n", "\u{A0}\n", "ok\n\u{A0}x\n"])
    func badTokenFiles(text: String) async throws {
        try await withTemporaryDirectory { folder in
            let file = try folder.write(Data(text.utf8), to: "tokens")
            #expect(throws: ConfigurationError.self) {
                try ServerConfiguration(reader: Self.reader(["publish.tokenFile": .init(.string(file.path), isSecret: false)]))
            }
        }
    }

    @Test("good tokens are read from every source; spaces and CRs around a token file's lines are not part of it")
    func goodTokens() async throws {
        try await withTemporaryDirectory { folder in
            let file = try folder.write(Data(" file-token \r\n\nsecond==\n".utf8), to: "tokens")
            let configuration = try ServerConfiguration(
                reader: Self.reader([
                    "publish.tokens": .init(.stringArray(["a-b.c_d~e+f/g="]), isSecret: true),
                    "publish.tokenFile": .init(.string(file.path), isSecret: false),
                ])
            )
            #expect(configuration.publish.tokens == ["a-b.c_d~e+f/g=", "file-token", "second=="])
        }
    }

    @Test(
        "a presented token is compared byte for byte: no Unicode space is trimmed away",
        arguments: [
            ("Bearer \u{A0}", 401), ("Bearer \u{A0}tok", 401), ("Bearer tok\u{A0}", 401), ("Bearer", 401), ("Bearer tok", 201), ("bearer   tok", 201),
        ]
    )
    func presentedTokens(field: String, status: Int) async throws {
        var configuration = ServerConfiguration()
        configuration.publish.tokens = ["tok"]
        try await InProcessServer.with(configuration: configuration) { server in
            try await server.connection { connection in
                let reply = try await connection.request("PUT", "/v1/files/a.txt", headers: [("Authorization", field)], body: Array("x".utf8))
                #expect(reply.status == status)
            }
        }
    }

    @Test("a new version over one of 4 GiB gets no patch from it and is published; the server keeps running")
    func versionTooLargeToPatch() async throws {
        try await withTemporaryDirectory { data in
            let store = try await BlobStore.open(dataDirectory: .init(data.path))
            let catalog = try Catalog(path: data.appendingPathComponent("catalog.sqlite").path)
            // The old version: a sparse 4 GiB blob, recorded as a publish records one.
            let huge = BlobRecord(sha256: String(repeating: "ab", count: 32), md5: String(repeating: "0", count: 32), size: 4 << 30, gzip: nil)
            let hugeFile = URL(fileURLWithPath: store.path(forSHA256: huge.sha256).string)
            try FileManager.default.createDirectory(at: hugeFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: hugeFile.path, contents: nil))
            let handle = try FileHandle(forWritingTo: hugeFile)
            try handle.truncate(atOffset: UInt64(huge.size))
            try handle.close()
            _ = try await ReleaseStore(catalog).publish(
                .init(
                    path: "big.bin",
                    blob: huge,
                    contentType: "application/octet-stream",
                    now: HTTPDate(secondsSince1970: 1_700_000_000),
                    keepVersions: 5
                )
            )
            let configuration = ServerConfiguration(publish: .init(tokens: [PublishToken.secret]))
            try await InProcessServer.withDataDirectory(data, configuration: configuration) { server in
                try await server.connection { connection in
                    let auth = PublishToken.authorization
                    #expect(try await connection.request("PUT", "/v1/files/big.bin", headers: [auth], body: Array("small now".utf8)).status == 201)
                    let lines = (0..<3000).map { "line \($0) of a file that patches well\n" }.joined()
                    #expect(try await connection.request("PUT", "/v1/files/other.txt", headers: [auth], body: Array(lines.utf8)).status == 201)
                    let more = Array((lines + "one more\n").utf8)
                    #expect(try await connection.request("PUT", "/v1/files/other.txt", headers: [auth], body: more).status == 201)
                    // Patches are made before the publish is committed: listed at once.
                    let files = try await connection.releaseFiles()
                    #expect(files.first(where: { $0["path"] as? String == "other.txt" })?["patches"] != nil)
                    #expect(files.first(where: { $0["path"] as? String == "big.bin" })?["patches"] == nil)
                    #expect(try await connection.request("GET", "/readyz").status == 200)
                }
            }
        }
    }
}
