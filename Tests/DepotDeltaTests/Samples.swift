import DepotTestFixtures
import Foundation

/// Sources and targets shaped like the content Depot ships: text-like records, with edits.
enum Samples {
    /// Records of words, so that both matches and literal data compress like real catalogs.
    static func records(count: Int, seed: UInt64) -> [UInt8] {
        let noise = Array(Fixture.pseudoRandom(count: count * 8, seed: seed))
        var bytes: [UInt8] = []
        for index in 0..<count {
            let word = noise[index * 8..<index * 8 + 6].map { UInt8(ascii: "a") + $0 % 26 }
            bytes.append(contentsOf: Array("\(index)\t".utf8) + word + Array("\tprice=\(Int(noise[index * 8 + 6]) * 7)\n".utf8))
        }
        return bytes
    }

    /// `source` with bytes changed, inserted and deleted in a few places.
    static func edited(_ source: [UInt8], seed: UInt64) -> [UInt8] {
        var target = source
        let noise = Array(Fixture.pseudoRandom(count: 64, seed: seed))
        for round in 0..<8 {
            guard !target.isEmpty else { break }
            let position = (Int(noise[round * 4]) << 8 | Int(noise[round * 4 + 1])) * target.count / 65536
            switch round % 3 {
            case 0: target[position] &+= 1
            case 1: target.insert(contentsOf: Array("inserted \(round)".utf8), at: position)
            default: target.removeSubrange(position..<min(target.count, position + 50))
            }
        }
        return target
    }

    /// Runs a program to its end; returns its exit status.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) async throws -> Int32 {
        try await ChildProcess.run(executable, arguments).status
    }
}
