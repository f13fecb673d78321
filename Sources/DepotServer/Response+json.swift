import DepotAPI
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension Response {
    /// `value` as a JSON answer, written as every Depot answer is (``APIJSON/encoder``).
    /// `close` ends the connection after it (a body left unread).
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, close: Bool = false) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if close { headers[.connection] = "close" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try APIJSON.encoder.encode(value))))
    }

    /// A JSON response whose body `produce` writes a part at a time (``DepotAPI/JSONStream``):
    /// for replies of megabytes, which `JSONEncoder` would first build whole as a tree.
    static func json(status: HTTPResponse.Status = .ok, producing produce: (inout JSONStream) throws -> Void) throws -> Response {
        var body = ByteBuffer()
        var stream = JSONStream { body.writeBytes($0) }
        try produce(&stream)
        try stream.flush()
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body))
    }
}
