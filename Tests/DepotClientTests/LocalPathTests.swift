import Foundation
import Testing

@testable import DepotClient

/// Where a release path lands in the sync folder: the plain paths nearly every release holds are
/// taken in one pass, any other is checked by encoding and decoding it; both ways refuse a path
/// that would leave the folder or that some platform cannot hold.
@Suite("Local paths")
struct LocalPathTests {
    @Test(
        "a release path gives the file below the folder, or is refused",
        arguments: [
            ("a.bin", "/sync/a.bin"),
            ("assets/0001/12.bin", "/sync/assets/0001/12.bin"),
            ("v1..2.txt", "/sync/v1..2.txt"),
            ("with space/é.txt", "/sync/with space/é.txt"),
            ("%2e%2e/x", "/sync/%2e%2e/x"),
            ("a+b=c@d", "/sync/a+b=c@d"),
            ("", nil),
            ("..", nil),
            ("../escaped", nil),
            ("a/../../escaped", nil),
            ("./a", nil),
            ("a//b", nil),
            ("/a", nil),
            ("a\\b", nil),
            ("a\u{1}b", nil),
        ] as [(String, String?)]
    )
    func localURL(path: String, expected: String?) {
        let local = try? LocalPath.url(for: path, in: "/sync")
        #expect(local?.path == expected)
    }
}
