// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif
import KeychainKit

/// The changes observers heard, gathered from any thread.
final class ChangeLog: Sendable {
    private let changes = Protected<[KeychainChange]>([])

    var all: [KeychainChange] { changes.withLock { $0 } }

    func append(_ change: KeychainChange) {
        changes.withLock { $0.append(change) }
    }

    /// The events heard for `key`, in order.
    func events(of key: KeychainAttributes) -> [KeychainEvent] {
        changes.withLock { $0.filter { $0.key == key }.map(\.event) }
    }

    /// Waits, at most 5 s, until `key` has `count` events; returns them.
    @discardableResult
    func waitFor(_ count: Int, of key: KeychainAttributes) -> [KeychainEvent] {
        for _ in 0..<500 where events(of: key).count < count { usleep(10_000) }
        return events(of: key)
    }
}
