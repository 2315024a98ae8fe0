// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// Which open file a descriptor number refers to (device and inode), so
/// that a fork()ed child closes a descriptor it inherited only while the
/// number still refers to that file — not to one the child opened after
/// closing it (as daemonizing children do).
package struct FileIdentity: Equatable {

    private let device: UInt
    private let inode: UInt

    /// The identity of what `fd` refers to now; `nil` when it is not open.
    package init?(of fd: Int32) {
        var status = stat()
        guard fd >= 0, fstat(fd, &status) == 0 else { return nil }
        device = UInt(status.st_dev)
        inode = UInt(status.st_ino)
    }

    /// Closes `fd` when it still refers to this file.
    package func closeIfStill(_ fd: Int32) {
        if FileIdentity(of: fd) == self { _ = close(fd) }
    }
}
