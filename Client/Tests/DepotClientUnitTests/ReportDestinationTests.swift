import Foundation
import Testing

@testable import DepotClient

/// Where health reports go (``ReportDestination``), the one rule, as a table.
@Suite("Report destination")
struct ReportDestinationTests {
    static let (origin, mirror1, mirror2) = (URL(string: "https://origin/")!, URL(string: "https://m1/")!, URL(string: "https://m2/")!)

    @Test(
        "reports go to the report server named, else to the one server of a client of one, else nowhere",
        arguments: [
            // named, servers → the report server (nil: none, the reports wait)
            (origin, [mirror1, mirror2], origin),
            (origin, [mirror1], origin),
            (nil, [origin], origin),
            (nil, [mirror1], mirror1),  // a client of one server reports to it; a static one's refusal is said
            (nil, [mirror1, mirror2], nil),  // defect 28: the last mirror is not taken for the origin
            (nil, [mirror1, origin], nil),  // nor is a last server that happens to be the origin: name it
        ] as [(URL?, [URL], URL?)]
    )
    func destination(named: URL?, servers: [URL], expected: URL?) {
        let destination = ReportDestination.choose(named: named, servers: servers)
        #expect(destination == (expected.map(ReportDestination.server) ?? .none(reason: ReportDestination.noServer(among: servers.count))))
    }

    @Test("undelivered reports in one line: how many wait, why, and how many the bound dropped")
    func summary() {
        #expect(ReportDelivery(queued: 0, reason: nil, dropped: 0, capacity: 100, server: nil).summary == nil)
        #expect(
            ReportDelivery(queued: 3, reason: "no report server", dropped: 0, capacity: 100, server: nil).summary
                == "3 reports queued: no report server"
        )
        #expect(
            ReportDelivery(queued: 1, reason: "the report server https://m1/ answered 405", dropped: 2, capacity: 100, server: "https://m1/").summary
                == "1 report queued: the report server https://m1/ answered 405; 2 dropped at the queue's bound of 100"
        )
    }
}
