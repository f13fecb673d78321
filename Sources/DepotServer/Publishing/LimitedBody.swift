import NIOCore

/// A request body that fails with ``UploadTooLarge`` once more than `limit` bytes have come, so
/// an oversized upload is refused as soon as it crosses the line, without storing the rest.
struct LimitedBody<Base: AsyncSequence>: AsyncSequence where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let base: Base
    let limit: Int64

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let limit: Int64
        var received: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { return nil }
            received += Int64(chunk.readableBytes)
            if received > limit { throw UploadTooLarge(limit: limit) }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit)
    }
}

/// An upload went past the configured size limit.
struct UploadTooLarge: Error {
    let limit: Int64
}
