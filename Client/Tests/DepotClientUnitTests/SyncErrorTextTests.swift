import DepotManifest
import Foundation
import Testing

@testable import DepotClient

/// What an app shows of a ``SyncError`` (``SyncError/errorDescription``): a sentence for the user
/// per code, the developer's reason kept in ``SyncError/message``.
@Suite("SyncError texts")
struct SyncErrorTextTests {
    /// Every code, with what `localizedDescription`, `failureReason` and `recoverySuggestion` say.
    static let table: [(SyncError.Code, String, String?, String?)] = [
        (
            .network, "The update could not be downloaded: check the connection and try again.",
            "The update server could not be reached, or the connection was lost.", "Check the connection and try again."
        ),
        (
            .server, "The update server is not answering as expected. Try again later.", "The update server gave an unexpected answer.",
            "Try again later."
        ),
        (
            .corrupt, "The update arrived damaged and was not installed. Try again later.",
            "What was downloaded does not match what was published.", "Try again later."
        ),
        (.io, "The update could not be saved on this device.", "The app's files could not be read or written.", "Restart the app and try again."),
        (
            .untrusted, "The update was refused because it could not be verified.",
            "The update is not signed by a publisher this app trusts, or it is out of date.", "Try again later."
        ),
        (
            .incompatible, "The latest update needs a newer version of the app.", "No available update works with this version of the app.",
            "Update the app, then try again."
        ),
        (
            .inUse, "The update is ready and will be installed when the app is restarted.", "Files the update replaces are in use.",
            "Restart the app to finish the update."
        ),
        (
            .notStaged, "There is no downloaded update to install.", "The update was not downloaded, or it is no longer valid.",
            "Download the update again."
        ),
        (
            .overBudget, "The update is larger than the app may download now.", "The update would use more data than allowed.",
            "Try again on Wi-Fi or later."
        ),
        (
            .noSpace, "There is not enough free space on this device for the update.", "The update needs more storage than is free.",
            "Free some space, then try again."
        ),
    ]

    @Test("every code: a sentence for the user as localizedDescription, a reason and a suggestion; the message stays the developer's")
    func texts() {
        for (code, description, reason, suggestion) in Self.table {
            let error = SyncError(code, "GET http://10.0.0.1:8080/bucket/channels/stable: connection refused (errno 111)")
            #expect((error as any Error).localizedDescription == description, "\(code)")
            #expect(error.errorDescription == description && error.failureReason == reason && error.recoverySuggestion == suggestion, "\(code)")
            #expect(error.description == error.message && error.debugDescription == "\(code): \(error.message)", "\(code)")
        }
    }

    @Test("the table covers every code, and no text for the user names a path, a URL, a number or a hash")
    func everyCodeAndNoJargon() {
        let codes: [SyncError.Code] = [.network, .server, .corrupt, .io, .untrusted, .incompatible, .inUse, .notStaged, .overBudget, .noSpace]
        #expect(Set(Self.table.map(\.0)) == Set(codes))
        for code in codes {
            let texts = [code.userText.description, code.userText.reason, code.userText.suggestion].compactMap { $0 }
            for text in texts {
                let jargon = ["/", "http", ".depot", "SHA", "sha256", "HTTP"].filter { text.contains($0) }
                #expect(jargon.isEmpty && !text.contains(where: \.isNumber) && text.count <= 90, "\(code): \(text)")
            }
        }
    }

    @Test("a code made elsewhere gets the general sentence")
    func otherCode() {
        let error = SyncError(SyncError.Code(name: "new"), "something new")
        #expect((error as any Error).localizedDescription == "The update could not be completed. Try again later.")
    }

    @Test("files failed: the first failure's code, a message counting them with the first reason, the report attached")
    func filesFailed() throws {
        var files = [
            SyncReport.File(path: "a.txt", outcome: .full, bytesTransferred: 3, size: 3),
            SyncReport.File(path: "b.txt", outcome: .failed, bytesTransferred: 0, size: 5),
            SyncReport.File(path: "c.txt", outcome: .failed, bytesTransferred: 0, size: 5),
        ]
        (files[1].error, files[1].code) = ("sha256 mismatch", .corrupt)
        (files[2].error, files[2].code) = ("connection lost", .network)
        let report = SyncReport(channelNotModified: false, documentBytes: 10, release: nil, files: files)
        let error = SyncError.filesFailed(report)
        #expect(error.code == .corrupt)
        #expect(error.message == "2 files could not be synced; the first, b.txt: sha256 mismatch")
        #expect(error.report == report)
        #expect((error as any Error).localizedDescription == SyncError.Code.corrupt.userText.description)
    }

    @Test("a file's code travels in the report's JSON by its name")
    func codeInJSON() throws {
        var file = SyncReport.File(path: "b.txt", outcome: .failed, bytesTransferred: 0, size: 5)
        file.code = .inUse
        let data = try JSONEncoder().encode(file)
        #expect(String(decoding: data, as: UTF8.self).contains("\"code\":\"in-use\""))
        #expect(try JSONDecoder().decode(SyncReport.File.self, from: data).code == .inUse)
    }

    @Test("the code of a file's failure: a SyncError's own, a URL loading error's network, any other io")
    func codeOfError() {
        #expect(SyncError.Code(of: SyncError(.untrusted, "x")) == .untrusted)
        #expect(SyncError.Code(of: URLError(.timedOut)) == .network)
        #expect(SyncError.Code(of: CocoaError(.fileReadNoPermission)) == .io)
    }
}
