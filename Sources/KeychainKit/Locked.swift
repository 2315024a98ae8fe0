import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex that survives fork().
///
/// Used instead of `Synchronization.Mutex`, which on Linux waits on futexes
/// that ThreadSanitizer cannot see: with pthread mutexes, a TSan run of the
/// test suite checks our locking instead of reporting every guarded access.
///
/// A fork()ed child has one thread; a lock that another thread of the
/// parent held at the moment of fork() would stay held forever in the child.
/// So the first use of each lock in a child re-initialises it (see
/// ``ForkGeneration``): what a lock guards here is either not shared state
/// (a keychain's operation lock) or state the child rebuilds (connections).
final class Lock: @unchecked Sendable {

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// The ``ForkGeneration`` the mutex was last initialised in.
    private let generation: Atomic<UInt>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        generation = Atomic(ForkGeneration.current)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex.
    @inline(__always)
    func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let current = ForkGeneration.current
        if generation.load(ordering: .acquiring) != current { reinitialize(for: current) }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Re-initialises the mutex once in a new fork generation.
    private func reinitialize(for current: UInt) {
        ForkGeneration.serialize {
            guard generation.load(ordering: .acquiring) != current else { return }
            pthread_mutex_init(mutex, nil)
            generation.store(current, ordering: .releasing)
        }
    }
}

/// Counts the fork()s between the process that loaded the library and this
/// one: a `pthread_atfork` child handler increments it.
enum ForkGeneration {

    private static let counter = Atomic<UInt>(0)

    /// Serialises re-initialisations; itself re-initialised in the child.
    nonisolated(unsafe) private static let reinitializing: UnsafeMutablePointer<pthread_mutex_t> = {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        pthread_atfork(nil, nil) {
            pthread_mutex_init(ForkGeneration.reinitializing, nil)
            ForkGeneration.counter.add(1, ordering: .releasing)
        }
        return mutex
    }()

    /// The current generation (0 in the process that loaded the library).
    static var current: UInt {
        _ = reinitializing  // installs the fork handler once
        return counter.load(ordering: .acquiring)
    }

    static func serialize(_ body: () -> Void) {
        pthread_mutex_lock(reinitializing)
        defer { pthread_mutex_unlock(reinitializing) }
        body()
    }
}

/// A value guarded by a ``Lock``.
final class Locked<Value>: @unchecked Sendable {

    private let lock = Lock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try lock.withLock { () throws(Failure) -> Result in try body(&value) }
    }
}
