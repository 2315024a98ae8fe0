import Observation

/// An observable, dictionary-like interface to a keychain.
///
/// Every read queries the backend (no value or error is cached). Reads,
/// writes and removals through one instance share one lock. `Keychain`
/// participates in Swift Observation per key: a write to one key never
/// invalidates a tracker that read only another; every mutation attempt
/// notifies, before the mutation, even when the value is equal or the attempt
/// fails. Observers registered with ``addObserver(forKey:_:)`` hear each
/// attempt after it, with its outcome.
public final class Keychain<Interface>: KeychainProtocol, Sendable
where Interface: KeychainInterfaceProtocol {

    /// The backend this keychain forwards to.
    public let interface: Interface

    private let lock = Lock()
    private let registrar = ObservationRegistrar()
    private let observers = KeychainObservers()
    private let keyPaths = Locked<[KeychainAttributes: KeyPath<Keychain, Void>]>([:])

    /// Creates a keychain backed by the given interface.
    public init(interface: Interface) {
        self.interface = interface
    }

    // MARK: Strings

    /// Reads the value for a key; a failed read returns `nil`.
    /// Writes a value for a key, or removes it when `nil`; a failed write is discarded.
    public subscript(key: KeychainAttributes) -> String? {
        get { try? value(forKey: key) }
        set {
            if let newValue {
                try? updateValue(newValue, forKey: key)
            } else {
                try? removeValue(forKey: key)
            }
        }
    }

    /// Reads the value for a key, returning a default when absent or unreadable.
    public subscript(key: KeychainAttributes, default defaultValue: @autoclosure () -> String) -> String {
        (try? value(forKey: key)) ?? defaultValue()
    }

    /// Returns the value for a key, or `nil` when absent.
    ///
    /// A stored value that is not valid UTF-8 reads as absent; the next write
    /// replaces it. Use ``data(forKey:)`` to read it as bytes.
    public func value(forKey key: KeychainAttributes) throws(KeychainError) -> String? {
        guard let bytes = try data(forKey: key) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether an item exists for a key, decided without reading its value.
    ///
    /// An item in a locked collection exists: `true`, although reading it
    /// throws ``KeychainError/interactionNotAllowed``. A value that is not
    /// valid UTF-8 exists too, although ``value(forKey:)`` reads it as `nil`.
    public func contains(_ key: KeychainAttributes) throws(KeychainError) -> Bool {
        registrar.access(self, keyPath: keyPath(for: key))
        try key.validate()
        return try lock.withLock { () throws(KeychainError) in try interface.containsItem(key) }
    }

    /// Inserts or updates the value for a key, stored as UTF-8.
    public func updateValue(_ value: String, forKey key: KeychainAttributes) throws(KeychainError) {
        try updateData(Array(value.utf8), forKey: key)
    }

    // MARK: Bytes

    /// Returns the bytes stored for a key, or `nil` when absent.
    public func data(forKey key: KeychainAttributes) throws(KeychainError) -> [UInt8]? {
        registrar.access(self, keyPath: keyPath(for: key))
        try key.validate()
        return try lock.withLock { () throws(KeychainError) in try interface.readItem(key) }
    }

    /// Inserts or updates the bytes for a key. The bytes may contain NUL.
    ///
    /// Updates the existing item (one storage call); when there is none,
    /// inserts (two calls). When another writer inserted first, the
    /// backends of this package replace its value in that insert; a backend
    /// that throws ``KeychainError/duplicateItem`` instead gets the update
    /// retried once (three calls), whose error propagates.
    public func updateData(_ value: [UInt8], forKey key: KeychainAttributes) throws(KeychainError) {
        try mutate(key, .update) { () throws(KeychainError) in
            do throws(KeychainError) {
                try interface.updateItem(key, value: value)
            } catch .itemNotFound {
                do throws(KeychainError) {
                    try interface.insertItem(key, value: value)
                } catch .duplicateItem {
                    try interface.updateItem(key, value: value)
                }
            }
        }
    }

    /// Removes the value for a key. Removing an absent item succeeds.
    public func removeValue(forKey key: KeychainAttributes) throws(KeychainError) {
        try mutate(key, .remove) { () throws(KeychainError) in
            do throws(KeychainError) {
                try interface.deleteItem(key)
            } catch .itemNotFound {
                return
            }
        }
    }

    /// The accounts that have an item in `service`, sorted. Values are not read.
    public func accounts(inService service: String = KeychainAttributes.defaultService) throws(KeychainError) -> [String] {
        guard !service.isEmpty, !service.utf8.contains(0) else { throw .invalidArgument }
        return try lock.withLock { () throws(KeychainError) in try interface.accounts(inService: service) }
    }

    // MARK: Observers

    /// Calls `handler` after every mutation attempt on `key` through this
    /// keychain, successful or not, with the attempt's outcome.
    ///
    /// The handler runs on the thread that made the attempt, after the
    /// attempt, with no lock held: it may use this keychain, including
    /// ``removeObserver(_:)`` on itself.
    public func addObserver(
        forKey key: KeychainAttributes,
        _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) -> KeychainObservationToken {
        observers.add(forKey: key, handler)
    }

    /// Removes an observer. Returns `false` when the token is unknown or was
    /// already removed. A notification already running may still call it.
    @discardableResult
    public func removeObserver(_ token: KeychainObservationToken) -> Bool {
        observers.remove(token)
    }

    /// Removes every observer.
    public func removeAllObservers() {
        observers.removeAll()
    }

    // MARK: Internals

    /// The per-key key path Observation tracks.
    private subscript(observationKey key: KeychainAttributes) -> Void { () }

    /// Key paths kept at most; beyond, the cache starts over. Key paths of
    /// one key are equal whenever they were made, so starting over changes
    /// nothing for Observation, and reading millions of distinct keys costs
    /// constant memory.
    static var keyPathCapacity: Int { 1024 }

    /// The key path of `key`, made once per key while cached: forming a key
    /// path into a generic class costs the runtime thousands of instructions.
    private func keyPath(for key: KeychainAttributes) -> KeyPath<Keychain, Void> {
        keyPaths.withLock { cache in
            if let cached = cache[key] { return cached }
            if cache.count >= Self.keyPathCapacity { cache.removeAll(keepingCapacity: true) }
            let made = \Keychain.[observationKey: key]
            cache[key] = made
            return made
        }
    }

    private func mutate(
        _ key: KeychainAttributes,
        _ event: KeychainEvent,
        _ body: () throws(KeychainError) -> Void
    ) throws(KeychainError) {
        // An unusable key is no attempt: it notifies nobody (as in the C API).
        try key.validate()
        let keyPath = keyPath(for: key)
        registrar.willSet(self, keyPath: keyPath)
        let error: KeychainError?
        do throws(KeychainError) {
            try lock.withLock { () throws(KeychainError) in try body() }
            error = nil
        } catch let failure {
            error = failure
        }
        registrar.didSet(self, keyPath: keyPath)
        observers.notify(KeychainChange(key: key, event: event, error: error))
        if let error { throw error }
    }
}

extension Keychain: Observable {}

extension Keychain where Interface == SecretServiceKeychainInterface {

    /// Creates a keychain backed by the user's Secret Service (the default
    /// collection).
    public convenience init() {
        self.init(interface: SecretServiceKeychainInterface())
    }
}
