/// A process-local backend with the same semantics as the Secret Service
/// backend, for tests, previews and programs that need no persistence.
///
/// Thread-safe. ``simulateFailure(_:)`` makes every storage call fail with a
/// chosen error, to exercise the "locked" and "unavailable" paths.
public final class InMemoryKeychainInterface: KeychainInterfaceProtocol, Sendable {

    private struct State {
        var items: [KeychainAttributes: [UInt8]] = [:]
        var failure: KeychainError?
    }

    private let state = Locked(State())

    /// Creates an empty in-memory keychain.
    public init() {}

    deinit {
        state.withLock { state in
            for key in Array(state.items.keys) { state.items[key]!.wipe() }
        }
    }

    /// Makes every following storage call throw `error` (for example
    /// ``KeychainError/interactionNotAllowed`` to simulate a locked keychain),
    /// until called again with `nil`. Stored items are kept.
    public func simulateFailure(_ error: KeychainError?) {
        state.withLock { $0.failure = error }
    }

    public func readItem(_ key: KeychainAttributes) throws(KeychainError) -> [UInt8]? {
        try access { state throws(KeychainError) in state.items[key] }
    }

    public func containsItem(_ key: KeychainAttributes) throws(KeychainError) -> Bool {
        try access { state throws(KeychainError) in state.items[key] != nil }
    }

    public func updateItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) {
        try access { state throws(KeychainError) in
            guard state.items[key] != nil else { throw .itemNotFound }
            state.items[key]!.wipe()
            state.items[key] = value
        }
    }

    /// Creates the item, or replaces the value of one another writer
    /// created first, atomically (as the Secret Service backend does).
    public func insertItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) {
        try access { state throws(KeychainError) in
            state.items[key]?.wipe()
            state.items[key] = value
        }
    }

    public func deleteItem(_ key: KeychainAttributes) throws(KeychainError) {
        try access { state throws(KeychainError) in
            guard var old = state.items.removeValue(forKey: key) else { throw .itemNotFound }
            old.wipe()
        }
    }

    public func accounts(inService service: String) throws(KeychainError) -> [String] {
        try access { state throws(KeychainError) in
            state.items.keys.filter { $0.service.utf8.elementsEqual(service.utf8) }.map(\.account).sortedByBytes()
        }
    }

    private func access<R>(_ body: (inout State) throws(KeychainError) -> R) throws(KeychainError) -> R {
        try state.withLock { state throws(KeychainError) in
            if let failure = state.failure { throw failure }
            return try body(&state)
        }
    }
}
