import ArgumentParser
import Foundation

/// A first argument that names no command: `depot publsh site/` would otherwise read as two
/// unexpected arguments. One line, the closest command when one is near, and exit status 64
/// (wrong usage), as every usage error.
enum UnknownCommand {
    /// The line for `arguments` (without the program's name), or `nil` when the first one is an
    /// option, a command, or absent.
    static func message(for arguments: [String], commands: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-"), !commands.contains(first), first != "help" else { return nil }
        let nearest = commands.map { (command: $0, distance: distance(first.lowercased(), $0)) }.min { $0.distance < $1.distance }
        let suggestion = nearest.flatMap { $0.distance <= max(1, $0.command.count / 3) ? "did you mean 'depot \($0.command)'?" : nil }
        return "'\(first.prefix(40))' is not a depot command: \(suggestion ?? "depot --help lists them")"
    }

    /// The edit distance between `a` and `b` (insertions, deletions, substitutions), by
    /// Levenshtein's table, a row at a time. Hand-written: a dozen lines no listed library has.
    static func distance(_ a: String, _ b: String) -> Int {
        let (a, b) = (Array(a), Array(b))
        var row = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var previous = row[0]
            row[0] = i + 1
            for (j, y) in b.enumerated() {
                let substitution = previous + (x == y ? 0 : 1)
                previous = row[j + 1]
                row[j + 1] = min(substitution, row[j] + 1, row[j + 1] + 1)
            }
        }
        return row[b.count]
    }
}
