#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The modes of everything Depot writes for others to read, decided once: the store's files
/// (blobs, their variants, block indexes and packs, patches), what `depot export`, the server's
/// `export.directory` and `depot mirror` write, and every folder on the way.
///
/// A file is made 0644 and a folder 0755, which the process's umask narrows as it narrows any
/// mode: under the shipped systemd unit (`UMask=0027`) a file is 0640 and a folder 0750, so the
/// service's group reads them and others do not, and the web server's user joins that group
/// (docs/export-and-mirrors.md); under the usual 0022, anyone reads them. Secrets are not written
/// with these: `depot keygen` makes its key 0600.
public enum FileModes {
    /// A new file's mode, before the umask.
    public static let file: mode_t = 0o644
    /// A new folder's mode, before the umask.
    public static let folder: mode_t = 0o755
    /// The group's read bit: what every file Depot writes keeps under any umask the guides
    /// allow (0022, the unit's 0027).
    static let groupRead: mode_t = 0o040

    /// Whether a file of mode `mode` (`st_mode`) is shared as these modes share it: readable by
    /// its group. A file only its owner reads (a blob stored 0600 before issue 56) is not, and
    /// an export copies it rather than linking it.
    public static func isShared(_ mode: mode_t) -> Bool {
        mode & groupRead != 0
    }
}
