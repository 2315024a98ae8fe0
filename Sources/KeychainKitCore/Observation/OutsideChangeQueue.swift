// SPDX-License-Identifier: MIT
import KeychainKitSystem

/// The changes an ``OutsideChangeSource`` heard and has not handed out yet,
/// in order: posted by whoever notices them (another interface's write,
/// a reread file), taken by the delivery thread. Thread-safe.
package final class OutsideChangeQueue: Sendable {

    private let changes = Locked<[OutsideChange]>([])

    /// An empty queue.
    package init() {}

    /// Queues `new` after what is already there.
    package func post<Changes: Sequence<OutsideChange>>(_ new: Changes) {
        changes.withLock { $0.append(contentsOf: new) }
    }

    package var isEmpty: Bool { changes.withLock { $0.isEmpty } }

    /// Forgets everything queued.
    package func removeAll() {
        changes.withLock { $0.removeAll(keepingCapacity: true) }
    }

    /// Empties the queue and returns what concerns `keys` (``OutsideChange/everything``
    /// concerns every key), in order.
    package func take(for keys: Set<KeychainAttributes>) -> [OutsideChange] {
        let taken = changes.withLock { queue in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
        return taken.filter { change in
            switch change {
            case let .changed(key), let .deleted(key): keys.contains(key)
            case .everything: true
            }
        }
    }
}
