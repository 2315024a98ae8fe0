// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// How many of the scripted bus's threads serve a connection, and a wait
/// until none does: a count under a pthread mutex with a condition
/// signalled when it reaches zero, so that the fuzzer's next input starts as
/// soon as the last connection has been freed (polling every millisecond
/// held each input about a millisecond more: about a sixth of the rate).
final class ServingCount: @unchecked Sendable {

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let zero: UnsafeMutablePointer<pthread_cond_t>
    private var count = 0

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        zero = .allocate(capacity: 1)
        zero.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(zero, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(zero)
        zero.deinitialize(count: 1)
        zero.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// One more thread serves.
    func enter() {
        pthread_mutex_lock(mutex)
        count += 1
        pthread_mutex_unlock(mutex)
    }

    /// A thread has stopped serving and freed what it held.
    func leave() {
        pthread_mutex_lock(mutex)
        count -= 1
        if count == 0 { pthread_cond_broadcast(zero) }
        pthread_mutex_unlock(mutex)
    }

    /// Waits until no thread serves, at most `seconds`; `false` when one
    /// still does then.
    func awaitNone(seconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        deadline.tv_sec += seconds
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while count > 0 {
            if pthread_cond_timedwait(zero, mutex, &deadline) == ETIMEDOUT { break }
        }
        return count == 0
    }
}
