// SPDX-License-Identifier: MIT
import KeychainKitSystem

/// A per-key registry of change handlers.
///
/// Registering, cancelling and notifying are O(handlers of that key),
/// independent of how many handlers other keys have. Handlers run on the
/// notifying thread with no lock held, so a handler may call back into the
/// keychain, including to cancel itself. A handler is released (and with it
/// whatever it captured) when it is cancelled and no notification that
/// started before is still running it.
///
/// Once ``remove(_:)`` or ``removeAll()`` returns, no further call of a
/// removed handler is started: a notification checks, under the lock, that
/// each handler is still registered just before calling it, so a handler
/// removed by an earlier one of the same notification, or by another
/// thread while the notification runs, is not called. A call another
/// thread had already started (or was starting just then) is not waited
/// for: it finishes, and the handler is released after.
package final class KeychainObservers: Sendable {

    package typealias Handler = @Sendable (KeychainChange) -> Void

    private struct Entry {
        let token: UInt64
        let handler: Handler
    }

    private struct State {
        var nextToken: UInt64 = 1
        var byKey: [KeychainAttributes: [Entry]] = [:]
        var keyOfToken: [UInt64: KeychainAttributes] = [:]
    }

    private let state = Locked(State())

    /// No observer yet.
    package init() {}

    package func add(forKey key: KeychainAttributes, _ handler: @escaping Handler) -> KeychainObservationToken {
        state.withLock { state in
            let token = state.nextToken
            state.nextToken += 1
            state.byKey[key, default: []].append(Entry(token: token, handler: handler))
            state.keyOfToken[token] = key
            return KeychainObservationToken(rawValue: token)
        }
    }

    /// Removes one handler; `false` when the token is unknown or already removed.
    package func remove(_ token: KeychainObservationToken) -> Bool {
        let removed: Entry? = state.withLock { state in
            guard let key = state.keyOfToken.removeValue(forKey: token.rawValue),
                  let index = state.byKey[key]?.firstIndex(where: { $0.token == token.rawValue })
            else { return nil }
            let entry = state.byKey[key]!.remove(at: index)
            if state.byKey[key]!.isEmpty { state.byKey[key] = nil }
            return entry
        }
        return removed != nil  // the handler is released here, outside the lock
    }

    /// Removes every handler.
    package func removeAll() {
        // The handlers are returned so that they are released here, outside the lock.
        _ = state.withLock { state in
            state.keyOfToken = [:]
            let all = state.byKey
            state.byKey = [:]
            return all
        }
    }

    /// The keys that have at least one handler.
    package var observedKeys: Set<KeychainAttributes> {
        state.withLock { Set($0.byKey.keys) }
    }

    /// Calls every handler of `change.key`, outside the lock.
    package func notify(_ change: KeychainChange) {
        let handlers = state.withLock { $0.byKey[change.key] }
        guard let handlers else { return }
        for entry in handlers where state.withLock({ $0.keyOfToken[entry.token] != nil }) {
            entry.handler(change)
        }
    }
}
