// SPDX-License-Identifier: MIT
import KeychainKitSystem
#if canImport(Glibc)
import Glibc
#endif

/// The changes that the other interfaces sharing an ``InMemoryStore`` make,
/// for a keychain over one of them: queued as they happen, handed out in
/// order.
final class InMemoryChangeSource: OutsideChangeSource, @unchecked Sendable {

    /// The interface whose own writes are not reported.
    let owner: ObjectIdentifier

    /// The ``ForkGeneration`` it was made in.
    let generation = ForkGeneration.current

    private let store: InMemoryStore
    private let queue = OutsideChangeQueue()

    /// Made readable by ``post(_:)``; `nil` when the system refused a pipe
    /// (then waits look at the queue every 10 ms).
    private let posted = WakePipe()

    init(store: InMemoryStore, owner: ObjectIdentifier) {
        self.store = store
        self.owner = owner
        store.state.withLock { $0.sources[ObjectIdentifier(self)] = self }
    }

    /// Queues a change another interface made (called under the store's lock).
    func post(_ change: OutsideChange) {
        queue.post(CollectionOfOne(change))
        posted?.raise()
    }

    /// Registered with the store from the start: nothing to do.
    func listen(for keys: Set<KeychainAttributes>) {}

    func waitForChanges(of keys: Set<KeychainAttributes>, wakingOn wake: Int32) -> [OutsideChange] {
        if queue.isEmpty {
            var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: posted?.readEnd ?? -1, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, posted == nil ? 10 : 1000)
        }
        posted?.drain()
        return queue.take(for: keys)
    }

    func close() {
        store.state.withLock { $0.sources[ObjectIdentifier(self)] = nil }
        posted?.close()
    }
}
