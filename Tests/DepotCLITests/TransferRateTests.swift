import Testing

@testable import DepotCommands

/// The progress bar's rate as a table: samples of (seconds, byte count) in, bytes a second out.
@Suite("progress bar rate")
struct TransferRateTests {
    struct Row: Sendable, CustomStringConvertible {
        let samples: [(Double, Int64)]
        let rate: Double?
        let description: String
    }

    static let rows: [Row] = [
        Row(samples: [(0, 0)], rate: nil, description: "one sample: no rate yet"),
        Row(samples: [(0, 0), (0.1, 2_840_000_000)], rate: nil, description: "a burst within the first half second is no rate (once 28.4 GB/s)"),
        Row(samples: [(0, 0), (0.5, 500_000)], rate: 1_000_000, description: "half a second measured"),
        Row(samples: [(0, 0), (0.25, 100), (0.75, 750)], rate: 1_000, description: "a short window waits for the next sample"),
        Row(samples: [(0, 900_000_000), (1, 901_000_000)], rate: 1_000_000, description: "bytes held before the bar began count for no speed"),
        Row(samples: [(0, 0), (1, 1_000_000), (2, 1_000_000)], rate: 700_000, description: "a stall lowers the rate smoothly"),
        Row(samples: [(0, 0), (1, 1_000), (1.5, 0), (2.5, 500)], rate: 850, description: "a restarted download starts a new window"),
    ]

    @Test("the rate over windows of at least half a second, smoothed", arguments: rows)
    func rate(row: Row) {
        var rate = TransferRate()
        for (seconds, bytes) in row.samples { rate.add(bytes: bytes, at: seconds) }
        #expect(rate.bytesPerSecond == row.rate)
    }

    @Test("the bar shows no rate nor time left until the rate is known, then both")
    func bar() {
        let bar = ProgressBar(label: "big.bin", total: 4_000_000, isEnabled: false, errors: .standardError)
        var rate = TransferRate()
        rate.add(bytes: 0, at: 0)
        rate.add(bytes: 2_840_000, at: 0.001)
        let early = bar.render(done: 2_840_000, rate: rate)
        #expect(early.contains("… /s  ETA …  big.bin") && !early.contains("GB/s"), "\(early)")
        rate.add(bytes: 3_000_000, at: 1)
        let later = bar.render(done: 3_000_000, rate: rate)
        #expect(later.contains("3.0 MB / 4.0 MB  3.0 MB/s  ETA 0:01  big.bin"), "\(later)")
    }
}
