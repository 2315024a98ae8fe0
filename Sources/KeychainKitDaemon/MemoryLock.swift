// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// Keeps the daemon's memory, where its secrets are, out of swap, where the
/// system allows it: with CAP_IPC_LOCK, or an RLIMIT_MEMLOCK (its soft limit
/// raised to the hard one) of at least ``needed``. Then every page, now and
/// to come, is locked (`mlockall`); under a smaller limit, locking what is
/// to come would make the daemon's allocations fail past it, so only the
/// secret memory its items' secrets are kept in is locked, up to the limit
/// (``SecretBuffer``), and the journal says why the rest is not. (The usual limit is 8 MiB; an
/// administrator raises it with `LimitMEMLOCK=` in the user manager's
/// configuration or `memlock` in limits.conf.)
enum MemoryLock {

    /// The least limit under which all memory is locked: the most the
    /// daemon holds (``ServerLimits``: collections of 256 MiB) and more.
    static let needed: UInt64 = 1 << 30

    /// RLIMIT_MEMLOCK, as Glibc's getrlimit takes it.
    private static let resource = __rlimit_resource_t(__RLIMIT_MEMLOCK.rawValue)

    /// Locks all memory, or says why not.
    static func lockAll() -> String? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return "RLIMIT_MEMLOCK cannot be read" }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(resource, &limit)
            _ = getrlimit(resource, &limit)
        }
        let allowed = hasIPCLock() || limit.rlim_cur == rlim_t.max || UInt64(limit.rlim_cur) >= needed
        guard allowed else {
            return "memory not locked against swapping: RLIMIT_MEMLOCK is \(limit.rlim_cur >> 10) KiB, "
                + "under the \(needed >> 20) MiB the daemon may hold (raise LimitMEMLOCK= or memlock)"
        }
        guard mlockall(MCL_CURRENT | MCL_FUTURE) == 0 else {
            return "memory not locked against swapping: mlockall: \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// Whether the process has CAP_IPC_LOCK (bit 14 of `CapEff` in
    /// /proc/self/status), which lifts the limit.
    private static func hasIPCLock() -> Bool {
        guard let file = fopen("/proc/self/status", "re") else { return false }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            guard text.hasPrefix("CapEff:") else { continue }
            let hex = text.dropFirst("CapEff:".count).filter { !$0.isWhitespace }
            return UInt64(hex, radix: 16).map { $0 & (1 << 14) != 0 } ?? false
        }
        return false
    }
}
