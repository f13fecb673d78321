import DepotManifest
import Foundation
import Testing

@testable import DepotClient

/// ``DepotClient/Configuration``'s init takes every setting, each defaulting as documented.
@Suite("Client configuration")
struct ConfigurationTests {
    @Test("one init sets every setting")
    func everySetting() throws {
        let space = FreeSpace { _ in 42 }
        let root = Data("root".utf8)
        let report = try #require(URL(string: "https://origin.example.com/"))
        let configuration = DepotClient.Configuration(
            channel: "beta",
            trustedKeys: ["key"],
            trustedRoot: root,
            removesDeletedFiles: false,
            requestTimeout: 5,
            minimumTransferRate: 10,
            transferRateWindow: 7,
            transferClock: ContinuousClock(),
            documentTimeout: 9,
            maximumDocumentBytes: 1_000,
            parallelDownloads: 2,
            sendsReports: true,
            clientVersion: ClientVersion("2.3.1"),
            reportServer: report,
            reportQueueCapacity: 7,
            maximumTransferBytes: 1_000_000,
            criticalMaximumTransferBytes: 2_000_000,
            allowsExpensiveNetworkAccess: false,
            allowsConstrainedNetworkAccess: false,
            layout: .releaseFolders,
            keepsPreviousRelease: true,
            freeSpace: space,
            replacesTrust: true
        )
        #expect(configuration.channel == "beta" && configuration.trustedKeys == ["key"] && configuration.trustedRoot == root)
        #expect(!configuration.removesDeletedFiles && configuration.requestTimeout == 5 && configuration.minimumTransferRate == 10)
        #expect(configuration.transferRateWindow == 7 && configuration.documentTimeout == 9 && configuration.maximumDocumentBytes == 1_000)
        #expect(configuration.parallelDownloads == 2 && configuration.sendsReports && configuration.clientVersion == ClientVersion("2.3.1"))
        #expect(configuration.reportServer == report && configuration.reportQueueCapacity == 7)
        #expect(configuration.maximumTransferBytes == 1_000_000 && configuration.criticalMaximumTransferBytes == 2_000_000)
        #expect(!configuration.allowsExpensiveNetworkAccess && !configuration.allowsConstrainedNetworkAccess)
        #expect(configuration.layout == .releaseFolders && configuration.replacesTrust && configuration.keepsPreviousRelease)
        #expect(configuration.freeSpace.read("/") == 42)
    }

    @Test("the defaults")
    func defaults() {
        let configuration = DepotClient.Configuration()
        #expect(configuration.reportQueueCapacity == ReportQueue.defaultCapacity && configuration.maximumTransferBytes == nil)
        #expect(configuration.criticalMaximumTransferBytes == nil && configuration.allowsExpensiveNetworkAccess)
        #expect(configuration.allowsConstrainedNetworkAccess && configuration.layout == .inPlace && !configuration.replacesTrust)
        #expect(!configuration.keepsPreviousRelease)
    }
}
