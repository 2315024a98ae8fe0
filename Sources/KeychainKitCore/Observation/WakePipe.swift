// SPDX-License-Identifier: MIT
import KeychainKitSystem
#if canImport(Glibc)
import Glibc
#endif

/// A pipe that wakes a thread waiting in poll(): ``raise()`` makes its read
/// end readable until ``drain()``. Non-blocking and close-on-exec.
struct WakePipe {

    /// The end to poll for readability.
    let readEnd: Int32
    private let writeEnd: Int32

    /// What both ends refer to.
    private let identity: FileIdentity?

    /// A new pipe; `nil` when the system refuses one.
    init?() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        readEnd = fds[0]
        writeEnd = fds[1]
        identity = FileIdentity(of: fds[0])
    }

    /// Makes the read end readable (a full pipe already is).
    func raise() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Reads away what ``raise()`` wrote.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &bytes, bytes.count) > 0 {}
    }

    /// Closes both ends.
    func close() {
        _ = Glibc.close(readEnd)
        _ = Glibc.close(writeEnd)
    }

    /// In a fork()ed child: closes the ends it inherited, unless their
    /// numbers now refer to files of the child's.
    func closeInherited() {
        identity?.closeIfStill(readEnd)
        identity?.closeIfStill(writeEnd)
    }
}
