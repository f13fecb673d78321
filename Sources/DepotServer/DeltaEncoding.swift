import CompressNIO
import DepotHTTP
import HTTPTypes
import Hummingbird
import NIOCore
import _NIOFileSystem

/// Delta encoding in HTTP (RFC 3229) for `/files/{path}`.
///
/// A `GET` with `A-IM: vcdiff` and an `If-None-Match` naming an earlier version's entity tag is
/// answered `226 IM Used` with the stored patch from that version, when there is one:
/// `IM: vcdiff` (or `IM: vcdiff, gzip` when `A-IM` also accepts gzip, which sends the stored
/// bytes as they are), `Delta-Base` naming the base and `ETag` the new version.
/// `Cache-Control: no-store, im` keeps caches that do not implement RFC 3229 from storing it
/// (§10.8.2). Everything else is left to the usual responder: a tag that matches the current
/// version (304), no patch from the tag (200), and requests with other preconditions or a
/// `Range`, whose meaning combined with a delta this server does not take on.
struct DeltaEncoding: Sendable {
    let content: PublishedContent
    let metrics: DepotMetrics
    let fileSystem: FileSystem

    func respond(to request: Request, resource: Resource) async throws -> Response? {
        let headers = request.headers
        guard request.method == .get || request.method == .head else { return nil }
        let accepted = AcceptedInstanceManipulations(aIM: headers[values: .aIM])
        guard accepted.vcdiff,
            headers[.ifMatch] == nil, headers[.ifUnmodifiedSince] == nil, headers[.range] == nil, headers[.ifRange] == nil,
            case .tags(let tags) = EntityTagCondition(fieldLines: headers[values: .ifNoneMatch])
        else { return nil }
        let current = resource.identity.entityTag
        if let gzip = resource.gzip, tags.contains(where: { $0.matchesWeakly(gzip.entityTag) }) { return nil }
        guard !tags.contains(where: { $0.matchesWeakly(current) }) else { return nil }
        var found: (base: EntityTag, patch: Resource)?
        for tag in tags where !tag.isWeak {
            if let (patch, _) = try await content.delta(from: tag.opaqueTag, to: current.opaqueTag) {
                found = (tag, patch)
                break
            }
        }
        guard let (base, patch) = found, case .file(let file) = patch.identity.storage else { return nil }

        let length = patch.identity.length
        var fields: HTTPFields = [
            .eTag: resource.identity.entityTagField,
            .lastModified: resource.lastModifiedField,
            .deltaBase: base.description,
            .im: accepted.gzip ? "vcdiff, gzip" : "vcdiff",
            .cacheControl: "no-store, im",
            .contentType: resource.contentType,
        ]
        fields[.vary] = resource.gzip != nil ? "Accept-Encoding, A-IM" : "A-IM"
        // The stored gzip bytes have a known length; the plain VCDIFF is gunzipped as it is sent,
        // its length unknown until the end, so it goes chunked (and HEAD names no length).
        if accepted.gzip { fields[.contentLength] = String(length) }
        let status = HTTPResponse.Status(code: 226, reasonPhrase: "IM Used")
        guard request.method == .get else {
            // HEAD: the fields of the GET. Without a length, the body must be of unknown length
            // too, or the framework would announce `Content-Length: 0`.
            return Response(status: status, headers: fields, body: accepted.gzip ? ResponseBody() : ResponseBody { try await $0.finish(nil) })
        }
        let full = resource.gzip?.length ?? resource.identity.length
        guard !accepted.gzip else {
            metrics.recordDeltaSaving(full - length)
            return Response(
                status: status,
                headers: fields,
                body: FileBody.make(file: file, segments: length > 0 ? [.file(0...(length - 1))] : [], contentLength: length, fileSystem: fileSystem)
            )
        }
        return Response(status: status, headers: fields, body: gunzipped(file, saving: full))
    }

    /// The VCDIFF of the gzip file at `path`, decompressed a chunk at a time as the writer takes
    /// it: memory stays at a few buffers per response, whatever the patch's size.
    private func gunzipped(_ path: FilePath, saving full: Int64) -> ResponseBody {
        ResponseBody { [fileSystem, metrics] writer in
            let decompressor = try ZlibDecompressor(algorithm: .gzip)
            var window = ByteBufferAllocator().buffer(capacity: 64 * 1024)
            var sent: Int64 = 0
            try await fileSystem.withFileHandle(forReadingAt: path) { handle in
                for try await var chunk in handle.readChunks(chunkLength: .kibibytes(64)) {
                    try await chunk.decompressStream(with: decompressor, window: &window) { output in
                        sent += Int64(output.readableBytes)
                        try await writer.write(output)
                    }
                    window.clear()
                }
            }
            metrics.recordDeltaSaving(full - sent)
            try await writer.finish(nil)
        }
    }
}

extension HTTPField.Name {
    /// RFC 3229 §10.5.3.
    static let aIM = Self("A-IM")!
    /// RFC 3229 §10.5.2.
    static let im = Self("IM")!
    /// RFC 3229 §10.5.1.
    static let deltaBase = Self("Delta-Base")!
}
