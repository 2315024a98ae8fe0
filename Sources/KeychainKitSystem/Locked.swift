// SPDX-License-Identifier: MIT
import CKeychainKitMemory
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// Locks, and what becomes of them across fork().
//
// pthread mutexes instead of `Synchronization.Mutex`, which on Linux waits
// on futexes that ThreadSanitizer cannot see: with pthread mutexes, a TSan
// run of the test suite checks our locking instead of reporting every
// guarded access.
//
// A fork()ed child has one thread. A lock another thread of the parent
// held at the moment of fork() would stay held forever in the child, and
// the data it guards could be half-changed. Two kinds of lock avoid both:
// - ``Locked`` guards data for short sections. fork() waits (in a
//   `pthread_atfork` prepare handler) until no such section runs, so the
//   child inherits consistent data and free locks.
// - ``Lock`` serialises whole operations, possibly long (a D-Bus call with
//   its timeout), so fork() cannot wait for it. The child re-initialises it
//   on first use (``ForkGeneration``). What it guards is either no data
//   (a keychain's operation lock) or a connection the child drops unread
//   (the Secret Service backend's connection slot).

/// A pthread mutex for long sections (whole keychain operations), usable
/// again in a fork()ed child even when another parent thread held it.
package final class Lock: @unchecked Sendable {

    private let mutex = PthreadMutex()

    /// The ``ForkGeneration`` the mutex was last initialised in.
    private let generation: Atomic<UInt>

    package init() {
        generation = Atomic(ForkGeneration.current)
    }

    /// Runs `body` holding the mutex.
    @inline(__always)
    package func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let current = ForkGeneration.current
        if generation.load(ordering: .acquiring) != current { reinitialize(for: current) }
        return try mutex.withLock(body)
    }

    /// Re-initialises the mutex once in a new fork generation.
    private func reinitialize(for current: UInt) {
        ForkGeneration.serialize {
            guard generation.load(ordering: .acquiring) != current else { return }
            mutex.reinitialize()
            generation.store(current, ordering: .releasing)
        }
    }
}

/// A value guarded for short sections; fork() waits until none runs.
package final class Locked<Value>: @unchecked Sendable {

    private let mutex = PthreadMutex()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value. `body` must be short
    /// and must not fork, wait on other threads or call user code.
    @inline(__always)
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try ForkGeneration.withoutFork { () throws(Failure) -> Result in
            try mutex.withLock { () throws(Failure) -> Result in try body(&value) }
        }
    }
}

/// What fork() does to the library's locks.
package enum ForkGeneration {

    private static let counter = Atomic<UInt>(0)

    /// The handlers and their locks, installed once.
    private struct Handlers {
        /// Held shared by every ``Locked`` section, exclusively across fork().
        let sections: UnsafeMutablePointer<pthread_rwlock_t>
        /// Serialises ``Lock`` re-initialisations.
        let reinitializing: PthreadMutex
    }

    nonisolated(unsafe) private static let handlers: Handlers = {
        // Sections allocate and free secret memory (a file's items): the
        // pool's lock must be taken after they are drained, so its handler
        // is installed first and its prepare step runs last.
        keychainkit_secret_memory_install_fork_handlers()
        let sections = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        sections.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(sections, nil)
        pthread_atfork(
            { pthread_rwlock_wrlock(ForkGeneration.handlers.sections) },
            { pthread_rwlock_unlock(ForkGeneration.handlers.sections) },
            {
                // The child's thread is not the one that took the write
                // lock (glibc checks the thread id): start both afresh.
                pthread_rwlock_init(ForkGeneration.handlers.sections, nil)
                ForkGeneration.handlers.reinitializing.reinitialize()
                ForkGeneration.counter.add(1, ordering: .releasing)
            })
        return Handlers(sections: sections, reinitializing: PthreadMutex())
    }()

    /// The current generation: the number of fork()s since the library
    /// was loaded in this process's ancestor.
    package static var current: UInt {
        _ = handlers  // installs the fork handlers once
        return counter.load(ordering: .acquiring)
    }

    /// Runs `body` where fork() cannot happen in the middle of it.
    @inline(__always)
    package static func withoutFork<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let sections = handlers.sections
        pthread_rwlock_rdlock(sections)
        defer { pthread_rwlock_unlock(sections) }
        return try body()
    }

    static func serialize(_ body: () -> Void) {
        handlers.reinitializing.withLock(body)
    }
}

/// A heap-allocated pthread mutex.
final class PthreadMutex: @unchecked Sendable {

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    @inline(__always)
    func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Makes the mutex unlocked, whoever held it (only in a fork()ed child).
    func reinitialize() {
        pthread_mutex_init(mutex, nil)
    }
}
