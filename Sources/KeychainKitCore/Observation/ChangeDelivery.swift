// SPDX-License-Identifier: MIT
import KeychainKitSystem
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The library-owned thread that delivers a keychain's changes made
/// elsewhere: it waits on an ``OutsideChangeSource`` for the keys observed,
/// and hands what arrives to its `deliver` function, with no lock held.
///
/// A keychain starts one with its first observer and stops it with its last.
/// ``stop()`` wakes the thread and waits until it has ended, a callback it is
/// running included — unless called on that very thread (from a callback),
/// which then ends once the callback returns.
package final class ChangeDelivery: @unchecked Sendable {

    private let source: any OutsideChangeSource
    private let deliver: @Sendable ([OutsideChange]) -> Void
    /// The observed keys, and how many times they were set.
    private let keys: Locked<(set: Set<KeychainAttributes>, generation: UInt64)>
    /// The generation of keys the source last listened for.
    private let listened = Atomic<UInt64>(0)
    private let stopping = Atomic<Bool>(false)

    /// How long ``waitUntilListening()`` waits at most.
    private static let listeningBoundMicroseconds: UInt64 = 10_000_000

    /// Wakes the thread from its wait.
    private let wakePipe: WakePipe

    private var thread = pthread_t()

    /// The ``ForkGeneration`` the thread was started in: a fork()ed child
    /// has no such thread.
    private let generation = ForkGeneration.current

    private init(
        source: any OutsideChangeSource, keys: Set<KeychainAttributes>, wakePipe: WakePipe,
        deliver: @escaping @Sendable ([OutsideChange]) -> Void
    ) {
        self.source = source
        self.keys = Locked((keys, 1))
        self.deliver = deliver
        self.wakePipe = wakePipe
    }

    /// Starts a thread delivering the changes of `keys` from `source`;
    /// `nil` when the system refuses a pipe or a thread (the keychain then
    /// delivers only its own writes).
    package static func start(
        source: any OutsideChangeSource, keys: Set<KeychainAttributes>,
        deliver: @escaping @Sendable ([OutsideChange]) -> Void
    ) -> ChangeDelivery? {
        guard let wakePipe = WakePipe() else { return nil }
        let delivery = ChangeDelivery(source: source, keys: keys, wakePipe: wakePipe, deliver: deliver)
        let context = Unmanaged.passRetained(delivery).toOpaque()
        guard pthread_create(&delivery.thread, nil, runDelivery, context) == 0 else {
            Unmanaged<ChangeDelivery>.fromOpaque(context).release()
            return nil
        }
        return delivery
    }

    /// Whether the thread runs in this process (not in a fork()ed child's
    /// memory only).
    package var belongsToThisProcess: Bool { generation == ForkGeneration.current }

    /// Replaces the keys whose changes are delivered; returns whether any
    /// is new (and so must be listened for).
    @discardableResult
    package func watch(_ keys: Set<KeychainAttributes>) -> Bool {
        let added = self.keys.withLock { current in
            defer { current = (keys, current.generation + 1) }
            return !keys.isSubset(of: current.set)
        }
        wakePipe.raise()
        return added
    }

    /// Waits until the source listens for the keys last set, so that a change
    /// made elsewhere after an observer was added reaches it; at most
    /// ``listeningBoundMicroseconds``. Returns at once on the delivery thread
    /// itself (an observer added from a callback), which cannot listen
    /// while it runs the callback.
    package func waitUntilListening() {
        guard pthread_equal(pthread_self(), thread) == 0 else { return }
        let wanted = keys.withLock { $0.generation }
        let deadline = Deadline(after: Self.listeningBoundMicroseconds)
        while listened.load(ordering: .acquiring) < wanted && !stopping.load(ordering: .acquiring)
            && deadline.remaining != nil {
            usleep(200)
        }
    }

    /// Ends the thread: waits until it has, unless called on it.
    package func stop() {
        stopping.store(true, ordering: .releasing)
        wakePipe.raise()
        if pthread_equal(pthread_self(), thread) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }

    /// In a fork()ed child, which has no delivery thread: closes the child's
    /// copies of the wake pipe and leaves the rest (the source, its
    /// connection) untouched and unreleased, as the parent's.
    package func abandon() {
        wakePipe.closeInherited()
        _ = Unmanaged.passRetained(self)
    }

    fileprivate func run() {
        while !stopping.load(ordering: .acquiring) {
            let (watched, generation) = keys.withLock { $0 }
            if listened.load(ordering: .relaxed) != generation {
                source.listen(for: watched)
                listened.store(generation, ordering: .releasing)
            }
            let changes = source.waitForChanges(of: watched, wakingOn: wakePipe.readEnd)
            wakePipe.drain()
            if stopping.load(ordering: .acquiring) { break }
            if !changes.isEmpty { deliver(changes) }
        }
        source.close()
    }

    deinit {
        wakePipe.close()
    }
}

/// The delivery thread's entry point; `context` is a retained ``ChangeDelivery``.
private func runDelivery(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    let delivery = Unmanaged<ChangeDelivery>.fromOpaque(context).takeRetainedValue()
    delivery.run()
    return nil
}
