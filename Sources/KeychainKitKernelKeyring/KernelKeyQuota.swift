// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's per-user key quota, as `/proc/key-users` reports it, for
/// the message of a write that exceeded it.
enum KernelKeyQuota {

    /// Says that the quota is exhausted, how much of it is in use, and
    /// where it is set.
    static func exceededMessage(needing: Int?) -> String {
        let needed = needing.map { ", and this key needs \($0) bytes" } ?? ""
        let usage = current().map { " (\($0.bytes) of \($0.maxBytes) bytes and \($0.keys) of \($0.maxKeys) keys in use\(needed))" } ?? needed
        return "the user's kernel key quota is exhausted\(usage); it is /proc/sys/kernel/keys/maxbytes "
            + "and maxkeys (root_maxbytes and root_maxkeys for root): remove keys or raise it"
    }

    /// This user's line of `/proc/key-users`: "UID: USAGE NKEYS/NIKEYS
    /// QNKEYS/MAXKEYS QNBYTES/MAXBYTES"; `nil` when unreadable.
    private static func current() -> (keys: Int, maxKeys: Int, bytes: Int, maxBytes: Int)? {
        guard let text = readFile("/proc/key-users") else { return nil }
        let uid = "\(geteuid()):"
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 5, fields[0] == uid else { continue }
            let keys = fields[3].split(separator: "/").compactMap { Int($0) }
            let bytes = fields[4].split(separator: "/").compactMap { Int($0) }
            guard keys.count == 2, bytes.count == 2 else { return nil }
            return (keys[0], keys[1], bytes[0], bytes[1])
        }
        return nil
    }

    private static func readFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
