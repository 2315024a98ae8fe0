// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// Locks shared between processes through a file (flock(2)).
package enum FileLock {

    /// Takes `fd`'s exclusive lock, polling until `waited` (milliseconds,
    /// counted across calls) reaches `milliseconds`: 0 when it did,
    /// `EWOULDBLOCK` when the time ran out, another `errno` when flock
    /// failed. A holder that stopped costs a caller that bound, never a
    /// hang.
    package static func lock(_ fd: Int32, within milliseconds: Int, waited: inout Int) -> Int32 {
        var pause = 1
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { return errno }
            guard waited < milliseconds else { return EWOULDBLOCK }
            usleep(UInt32(pause * 1000))
            waited += pause
            pause = min(2 * pause, 20)
        }
        return 0
    }

    /// Unlocks and closes `fd`. Unlocked first: a child fork()ed while the
    /// lock was held has a copy of the descriptor, and flock's lock (the
    /// open file's) would stay held until that child closed it, which it
    /// cannot know to do; its own next lock would then wait on itself.
    package static func close(_ fd: Int32) {
        flock(fd, LOCK_UN)
        Glibc.close(fd)
    }
}
