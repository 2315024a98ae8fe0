// SPDX-License-Identifier: MIT
import Foundation

/// A value guarded by an NSLock (a pthread mutex), for test bookkeeping
/// across threads; ThreadSanitizer sees its synchronization, unlike that of
/// `Synchronization.Mutex`.
final class Protected<Value>: @unchecked Sendable {

    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
