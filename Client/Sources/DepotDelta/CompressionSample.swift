#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether deflate may pay on some bytes, judged from a sample at a few per cent of deflate's
/// cost: a 1 KiB file of random bytes costs zlib about 40 µs to find nothing to save, at any
/// level. Hand-written: no listed library estimates this.
///
/// Deflate saves in two ways: Huffman codes, which cannot beat the bytes' order-0 entropy, and
/// matches of earlier strings. The sample says "no gain" only when both fail: the entropy
/// (with the Miller–Madow correction for a short sample) leaves less than `minimumSavings`, and
/// repeated strings of four bytes cover less than that share of the sample. Random and
/// already-compressed content (PNG, JPEG, zip) is judged so; text, JSON and SQLite pages never
/// are. A wrong "no gain" costs bytes only: the file is served as it is.
public enum CompressionSample {
    /// The most bytes looked at: the start of a larger input stands for the whole.
    public static let sampleSize = 64 * 1024

    /// `false` when deflate would not save `minimumSavings` (0.05: 5 %) of `bytes`.
    public static func mayPay(_ bytes: UnsafeRawBufferPointer, minimumSavings: Double) -> Bool {
        let sample = UnsafeRawBufferPointer(rebasing: bytes.prefix(sampleSize))
        guard sample.count >= 64 else { return true }
        let limit = 8 * (1 - minimumSavings)
        return entropy(of: sample) < limit || Double(repeatedBytes(in: sample)) >= minimumSavings * Double(sample.count)
    }

    /// Bits a byte of `sample`'s order-0 entropy, corrected for its length (Miller–Madow).
    static func entropy(of sample: UnsafeRawBufferPointer) -> Double {
        var counts = [Int](repeating: 0, count: 256)
        for byte in sample { counts[Int(byte)] += 1 }
        let total = Double(sample.count)
        var bits = 0.0
        var seen = 0
        for count in counts where count > 0 {
            let share = Double(count) / total
            bits -= share * log2(share)
            seen += 1
        }
        return bits + Double(seen - 1) / (2 * total * 0.693_147_180_559_945_3)
    }

    /// How many bytes of `sample` continue a string of four bytes seen earlier in it, found
    /// through a table of the last position of each hash (as deflate's own search starts).
    static func repeatedBytes(in sample: UnsafeRawBufferPointer) -> Int {
        var last = [Int32](repeating: -1, count: 1 << 12)
        var repeated = 0
        var position = 0
        while position + 4 <= sample.count {
            let word = sample.loadUnaligned(fromByteOffset: position, as: UInt32.self)
            let slot = Int((word &* 2_654_435_761) >> 20)
            let earlier = Int(last[slot])
            last[slot] = Int32(position)
            if earlier >= 0, sample.loadUnaligned(fromByteOffset: earlier, as: UInt32.self) == word {
                var length = 4
                while position + length < sample.count, sample[earlier + length] == sample[position + length] { length += 1 }
                repeated += length
                position += length
            } else {
                position += 1
            }
        }
        return repeated
    }
}
