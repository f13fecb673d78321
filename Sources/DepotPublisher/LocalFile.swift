/// One file of the tree a publish sends: where it is, the path it gets in the release, and its
/// status when it was listed.
public struct LocalFile: Sendable, Hashable {
    /// Its path on this machine.
    public var file: String
    /// Its path in the release.
    public var logicalPath: String
    public var status: FileStatus

    public init(file: String, logicalPath: String, status: FileStatus) {
        self.file = file
        self.logicalPath = logicalPath
        self.status = status
    }
}
