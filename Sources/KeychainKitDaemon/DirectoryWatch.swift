// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// inotify on the keyring files' directory: a file written, renamed into
/// place or removed by another program (our file store, libsecret's file
/// backend, oo7) makes it readable, so the daemon reads its collections
/// again and announces what changed without waiting for a client's call.
final class DirectoryWatch {
    /// The descriptor to wait on; -1 when inotify is not available (the
    /// collections are then read again at each call only).
    let fd: Int32

    init(_ directory: String) {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE)
        if fd >= 0 && inotify_add_watch(fd, directory, mask) < 0 {
            close(fd)
            self.fd = -1
        } else {
            self.fd = fd
        }
    }

    /// Reads every queued event; whether there was any.
    func drain() -> Bool {
        guard fd >= 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var any = false
        while read(fd, &buffer, buffer.count) > 0 { any = true }
        return any
    }

    deinit {
        if fd >= 0 { close(fd) }
    }
}
