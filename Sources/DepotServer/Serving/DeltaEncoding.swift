import DepotDelta
import DepotHTTP
import DepotManifest
import HTTPTypes
import Hummingbird
import NIOCore
import _NIOFileSystem

/// Delta encoding in HTTP (RFC 3229) for `/files/{path}`: when ``DeltaSelection`` allows a
/// delta and a stored patch from one of the client's instances exists, the answer is `226 IM
/// Used` with it: `IM: vcdiff` (or `IM: vcdiff, gzip` when `A-IM` also accepts gzip, which sends
/// the stored bytes as they are), `Delta-Base` naming the base and `ETag` the new version.
/// `Cache-Control: no-store, im` keeps caches that do not implement RFC 3229 from storing it
/// (§10.8.2). Everything else is left to the usual responder.
struct DeltaEncoding: Sendable {
    let content: PublishedContent
    let metrics: DepotMetrics
    let fileSystem: FileSystem
    /// The most `If-None-Match` tags looked up as bases (`deltas.maximumBaseTags`).
    let maximumBases: Int

    func respond(to request: Request, resource: Resource) async throws -> Response? {
        let headers = request.headers
        let method: ConditionalRequest.Method = request.method == .get ? .get : request.method == .head ? .head : .other
        let selection = DeltaSelection.select(
            method: method,
            current: resource.identity.entityTag,
            variants: ContentCoding.precompressed.compactMap { resource.encoded[$0]?.entityTag },
            maximumBases: maximumBases
        ) { headers[values: HTTPField.Name($0.name)!] }
        guard case .delta(let bases, let gzip) = selection else { return nil }
        let current = resource.identity.entityTag
        var found: (base: EntityTag, patch: Resource)?
        for base in bases {
            if let object = try? TreeObject.delta(from: base.opaqueTag, to: current.opaqueTag), let (patch, _) = try await content.delta(object) {
                found = (base, patch)
                break
            }
        }
        guard let (base, patch) = found, case .file(let file) = patch.identity.storage else { return nil }

        let length = patch.identity.length
        var fields: HTTPFields = [
            .eTag: resource.identity.entityTagField,
            .lastModified: resource.lastModifiedField,
            .deltaBase: base.description,
            .im: DeltaSelection.instanceManipulation(gzip: gzip),
            .cacheControl: "no-store, im",
            .contentType: resource.contentType,
        ]
        fields[.vary] = resource.encoded.isEmpty ? "A-IM" : "Accept-Encoding, A-IM"
        // The stored gzip bytes have a known length; the plain VCDIFF is gunzipped as it is sent,
        // its length unknown until the end, so it goes chunked (and HEAD names no length).
        if gzip { fields[.contentLength] = String(length) }
        let status = HTTPResponse.Status(code: 226, reasonPhrase: "IM Used")
        guard request.method == .get else {
            // HEAD: the fields of the GET. Without a length, the body must be of unknown length
            // too, or the framework would announce `Content-Length: 0`.
            return Response(status: status, headers: fields, body: gzip ? ResponseBody() : ResponseBody { try await $0.finish(nil) })
        }
        let full = resource.gzip?.length ?? resource.identity.length
        guard !gzip else {
            metrics.recordDeltaSaving(full - length)
            return Response(
                status: status,
                headers: fields,
                body: FileBody.make(file: file, segments: length > 0 ? [.file(0...(length - 1))] : [], contentLength: length, fileSystem: fileSystem)
            )
        }
        return Response(status: status, headers: fields, body: gunzipped(file, saving: full))
    }

    /// The VCDIFF of the gzip file at `path`, decompressed a piece at a time as the writer takes
    /// it: memory stays at one read chunk and one piece of output per response, whatever the
    /// patch's size and however well it compresses.
    private func gunzipped(_ path: FilePath, saving full: Int64) -> ResponseBody {
        ResponseBody { [fileSystem, metrics] writer in
            let inflater = try GzipInflater(bufferSize: Self.pieceLength)
            var sent: Int64 = 0
            try await fileSystem.withFileHandle(forReadingAt: path) { handle in
                for try await var chunk in handle.readChunks(chunkLength: .kibibytes(16)) {
                    var produced: Int
                    repeat {
                        var output = ByteBuffer()
                        let step = try chunk.withUnsafeReadableBytes { try inflater.step($0) { output.writeBytes($0) } }
                        chunk.moveReaderIndex(forwardBy: step.consumed)
                        produced = step.produced
                        sent += Int64(produced)
                        if produced > 0 { try await writer.write(output) }
                    } while chunk.readableBytes > 0 || produced == Self.pieceLength
                }
            }
            metrics.recordDeltaSaving(full - sent)
            try await writer.finish(nil)
        }
    }

    /// The most VCDIFF one write of an un-gzipped patch carries.
    static let pieceLength = 64 * 1024
}

extension HTTPField.Name {
    /// RFC 3229 §10.5.2.
    static let im = Self("IM")!
    /// RFC 3229 §10.5.1.
    static let deltaBase = Self("Delta-Base")!
}
