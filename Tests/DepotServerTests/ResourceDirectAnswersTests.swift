import HTTPTypes
import NIOCore
import Testing

@testable import DepotServer

/// Which of the server's answers ``ResourceDirectAnswers`` gives the connection to write itself.
@Suite("Resource direct answers")
struct ResourceDirectAnswersTests {
    @Test("which answers go out directly: not a refusal, not a multipart body")
    func answerRule() {
        let storage = Resource.Storage.bytes(ByteBuffer(string: "abc"))
        let sent: [(ResourceAnswer, Bool)] = [
            (ResourceAnswer(status: .notModified, fields: [:]), true),
            (ResourceAnswer(status: .ok, fields: [:], body: .range(storage, 0...2)), true),
            (ResourceAnswer(status: .partialContent, fields: [:], body: .range(storage, 1...1)), true),
            (ResourceAnswer(status: .partialContent, fields: [:], body: .parts(storage, [.file(0...0), .file(2...2)], length: 2)), false),
            (ResourceAnswer(status: .preconditionFailed, fields: [:], refusal: "no"), false),
            (ResourceAnswer(status: .rangeNotSatisfiable, fields: [:], refusal: "no"), false),
        ]
        for (answer, expected) in sent {
            #expect(ResourceDirectAnswers.sends(answer) == expected, "\(answer.status)")
        }
    }
}
