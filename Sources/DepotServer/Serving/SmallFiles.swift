import DepotHTTP
import NIOCore
import _NIOFileSystem

/// In-memory copies of small stored files, so that ``DirectResponder`` can answer their 200s
/// without Hummingbird or a file read. Content is immutable per SHA-256, so a copy made for one
/// scan or reload is reused by the next; memory is bounded by a byte budget.
struct SmallFiles: Sendable {
    /// Files up to this size are held in memory.
    static let maximumFileBytes: Int64 = 64 * 1024

    /// The copies, by the SHA-256 of the variant's bytes.
    private(set) var copies: [String: ByteBuffer] = [:]
    let budget: Int
    private var used = 0

    init(budget: Int) {
        self.budget = budget
    }

    /// `resource` with its small variants served from memory, as far as the budget allows.
    /// `previous` is the last build's set, whose copies are reused.
    mutating func holding(_ resource: Resource, previous: SmallFiles, fileSystem: FileSystem) async -> Resource {
        let identity = await holding(resource.identity, previous: previous, fileSystem: fileSystem)
        var encoded: [ContentCoding: Resource.Variant] = [:]
        for (coding, variant) in resource.encoded { encoded[coding] = await holding(variant, previous: previous, fileSystem: fileSystem) }
        return resource.with(identity: identity, encoded: encoded)
    }

    private mutating func holding(_ variant: Resource.Variant, previous: SmallFiles, fileSystem: FileSystem) async -> Resource.Variant {
        guard case .file(let path) = variant.storage, variant.length <= Self.maximumFileBytes, used + Int(variant.length) <= budget else {
            return variant
        }
        let sha256 = variant.entityTag.opaqueTag
        var copy = copies[sha256] ?? previous.copies[sha256]
        if copy == nil { copy = await Self.read(path, length: variant.length, fileSystem: fileSystem) }
        guard let copy else { return variant }
        if copies[sha256] == nil {
            copies[sha256] = copy
            used += copy.readableBytes
        }
        return Resource.Variant(storage: .bytes(copy), length: variant.length, sha256: sha256)
    }

    /// `resource` with each variant stored in a file of at most ``maximumFileBytes`` read into
    /// memory, without a budget: the caller keeps count.
    static func inMemory(_ resource: Resource, fileSystem: FileSystem) async -> Resource {
        func copied(_ variant: Resource.Variant) async -> Resource.Variant {
            guard case .file(let path) = variant.storage, variant.length <= maximumFileBytes,
                let copy = await read(path, length: variant.length, fileSystem: fileSystem)
            else { return variant }
            return Resource.Variant(storage: .bytes(copy), length: variant.length, sha256: variant.entityTag.opaqueTag)
        }
        var encoded: [ContentCoding: Resource.Variant] = [:]
        for (coding, variant) in resource.encoded { encoded[coding] = await copied(variant) }
        return resource.with(identity: await copied(resource.identity), encoded: encoded)
    }

    /// The file at `path`, when it still has `length` bytes: a file that changed under us (or
    /// vanished) is served from disk as before.
    private static func read(_ path: FilePath, length: Int64, fileSystem: FileSystem) async -> ByteBuffer? {
        let copy = try? await fileSystem.withFileHandle(forReadingAt: path) { handle in
            try await handle.readToEnd(maximumSizeAllowed: .bytes(length))
        }
        return copy?.readableBytes == Int(length) ? copy : nil
    }
}
