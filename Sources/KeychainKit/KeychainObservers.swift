#if canImport(Glibc)
import Glibc
#endif

/// A per-key registry of change handlers.
///
/// Registering, cancelling and notifying are O(handlers of that key),
/// independent of how many handlers other keys have. Handlers run on the
/// notifying thread with no lock held, so a handler may call back into the
/// keychain, including to cancel itself. A handler is released (and with it
/// whatever it captured) when it is cancelled and no notification that
/// started before is still running it.
///
/// Once ``remove(_:)`` or ``removeAll()`` returns, a removed handler never
/// starts again: each call is started only after checking, under the lock,
/// that its handler is still registered (a notification in progress does
/// not call a handler removed by an earlier one). They also wait until
/// the removed handlers are not running on another thread, so that what a
/// handler uses may be freed once they return — except when called from
/// inside a handler of this registry: two handlers on two threads that
/// removed each other would otherwise wait for each other forever.
final class KeychainObservers: Sendable {

    typealias Handler = @Sendable (KeychainChange) -> Void

    private struct Entry {
        let token: UInt64
        let handler: Handler
    }

    /// A handler's call in progress, and the thread running it.
    private struct Running: @unchecked Sendable {
        let token: UInt64
        let thread: pthread_t
    }

    private struct State {
        var nextToken: UInt64 = 1
        var byKey: [KeychainAttributes: [Entry]] = [:]
        var keyOfToken: [UInt64: KeychainAttributes] = [:]
        var running: [Running] = []
    }

    private let state = Locked(State())

    func add(forKey key: KeychainAttributes, _ handler: @escaping Handler) -> KeychainObservationToken {
        state.withLock { state in
            let token = state.nextToken
            state.nextToken += 1
            state.byKey[key, default: []].append(Entry(token: token, handler: handler))
            state.keyOfToken[token] = key
            return KeychainObservationToken(rawValue: token)
        }
    }

    /// Removes one handler; `false` when the token is unknown or already removed.
    func remove(_ token: KeychainObservationToken) -> Bool {
        let removed: Entry? = state.withLock { state in
            guard let key = state.keyOfToken.removeValue(forKey: token.rawValue),
                  let index = state.byKey[key]?.firstIndex(where: { $0.token == token.rawValue })
            else { return nil }
            let entry = state.byKey[key]!.remove(at: index)
            if state.byKey[key]!.isEmpty { state.byKey[key] = nil }
            return entry
        }
        guard removed != nil else { return false }
        waitWhileRunning { $0 == token.rawValue }
        return true  // the handler is released here, outside the lock
    }

    /// Removes every handler.
    func removeAll() {
        // The handlers are returned so that they are released here, outside the lock.
        _ = state.withLock { state in
            state.keyOfToken = [:]
            let all = state.byKey
            state.byKey = [:]
            return all
        }
        waitWhileRunning { _ in true }
    }

    /// Waits until no handler whose token satisfies `removed` runs on
    /// another thread; returns at once on a thread that is running a
    /// handler of this registry itself.
    private func waitWhileRunning(_ removed: (UInt64) -> Bool) {
        while true {
            let busy = state.withLock { state -> Bool in
                let me = pthread_self()
                if state.running.contains(where: { pthread_equal($0.thread, me) != 0 }) { return false }
                return state.running.contains { removed($0.token) }
            }
            if !busy { return }
            usleep(200)  // a handler is user code: there is no bound to give it
        }
    }

    /// The keys that have at least one handler.
    var observedKeys: Set<KeychainAttributes> {
        state.withLock { Set($0.byKey.keys) }
    }

    /// Calls every handler of `change.key`, outside the lock.
    func notify(_ change: KeychainChange) {
        let handlers = state.withLock { $0.byKey[change.key] }
        guard let handlers else { return }
        for entry in handlers {
            let started = state.withLock { state -> Bool in
                guard state.keyOfToken[entry.token] != nil else { return false }  // removed meanwhile
                state.running.append(Running(token: entry.token, thread: pthread_self()))
                return true
            }
            guard started else { continue }
            entry.handler(change)
            state.withLock { state in
                let me = pthread_self()
                if let index = state.running.lastIndex(where: { $0.token == entry.token && pthread_equal($0.thread, me) != 0 }) {
                    state.running.remove(at: index)
                }
            }
        }
    }
}
