// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// What `stat` says of one version of a file: every write of the keyring
/// file renames a new file into place, so a new version has another
/// inode, and a file edited in place another size or time. Equal stamps:
/// the bytes read before are still the file's.
struct FileStamp: Equatable, Sendable {
    private let device: UInt64
    private let inode: UInt64
    private let size: Int64
    private let modified: (Int, Int)
    private let changed: (Int, Int)

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        modified = (status.st_mtim.tv_sec, status.st_mtim.tv_nsec)
        changed = (status.st_ctim.tv_sec, status.st_ctim.tv_nsec)
    }

    static func == (a: FileStamp, b: FileStamp) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size && a.modified == b.modified
            && a.changed == b.changed
    }
}
