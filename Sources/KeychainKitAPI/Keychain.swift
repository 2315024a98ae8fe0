// SPDX-License-Identifier: MIT
import KeychainKitCore
import KeychainKitSecretServiceBackend
import KeychainKitSystem
#if !KEYCHAINKIT_WITHOUT_OBSERVATION
import Observation
#endif
import Synchronization

/// An observable, dictionary-like interface to a keychain.
///
/// Every read queries the backend (no value or error is cached). Reads,
/// writes and removals through one instance share one lock. `Keychain`
/// participates in Swift Observation per key: a write to one key never
/// invalidates a tracker that read only another; every mutation attempt
/// notifies, before the mutation, even when the value is equal or the attempt
/// fails. Observers registered with ``addObserver(forKey:_:)`` hear each
/// attempt after it, with its outcome, and — when the backend can tell —
/// changes to their key made elsewhere (``KeychainEvent/changed``,
/// ``KeychainEvent/deleted``), which Observation hears too for observed keys.
public final class Keychain<Interface>: KeychainProtocol, Sendable
where Interface: KeychainInterfaceProtocol {

    /// The backend this keychain forwards to.
    public let interface: Interface

    private let lock = Lock()
    #if KEYCHAINKIT_WITHOUT_OBSERVATION
    private let registrar = WithoutObservation()
    #else
    private let registrar = ObservationRegistrar()
    #endif
    private let observers = KeychainObservers()
    private let keyPaths = Locked<[KeychainAttributes: KeyPath<Keychain, Void>]>([:])

    /// The thread delivering changes made elsewhere, while any key is observed.
    private let delivery = Locked<ChangeDelivery?>(nil)

    /// The ``ForkGeneration`` ``delivery`` was last brought up to date in.
    private let deliveryGeneration = Atomic<UInt>(ForkGeneration.current)

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
        guard var bytes = try data(forKey: key) else { return nil }
        defer { bytes.wipe() }
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
        resumeDeliveryAfterFork()
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
        resumeDeliveryAfterFork()
        return try lock.withLock { () throws(KeychainError) in try interface.readItem(key) }
    }

    /// The bytes stored for each of `accounts` in `service`, in the order
    /// asked, read together: on the Secret Service one search, one call
    /// for every item's attributes and one `GetSecrets`, where reading one
    /// by one costs a search and a `GetSecret` each (see
    /// ``SecretServiceKeychainInterface/readItems(accounts:inService:)``).
    ///
    /// Each result is what ``data(forKey:)`` of its key gives: the bytes,
    /// `nil` when absent, or its error (an account that is no valid key:
    /// ``KeychainError/invalidArgument``; a locked item:
    /// ``KeychainError/interactionNotAllowed``). Throws what fails for
    /// every account: an invalid `service`, no service to read from.
    public func data(
        forAccounts accounts: [String], inService service: String = KeychainAttributes.defaultService
    ) throws(KeychainError) -> [Result<[UInt8]?, KeychainError>] {
        guard !service.isEmpty, !service.utf8.contains(0) else { throw .invalidArgument }
        let isValid = accounts.map { account in
            let key = KeychainAttributes(account: account, service: service)
            registrar.access(self, keyPath: keyPath(for: key))
            return key.invalidReason == nil
        }
        resumeDeliveryAfterFork()
        let valid = zip(accounts, isValid).filter(\.1).map(\.0)
        var read = try lock.withLock { () throws(KeychainError) in
            try interface.readItems(accounts: valid, inService: service)
        }.makeIterator()
        return isValid.map { valid in
            valid
                ? read.next() ?? .failure(.unknownError(code: -1, message: "the backend answered fewer keys than asked"))
                : .failure(.invalidArgument)
        }
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

    /// The items of `service` with their labels and times (where the
    /// backend keeps them), sorted by account bytes. No secret is read, so
    /// it works while the keychain is locked (unless a locked collection
    /// hides its items).
    public func items(inService service: String = KeychainAttributes.defaultService) throws(KeychainError) -> [KeychainItemInfo] {
        guard !service.isEmpty, !service.utf8.contains(0) else { throw .invalidArgument }
        resumeDeliveryAfterFork()
        return try lock.withLock { () throws(KeychainError) in try interface.itemInfo(inService: service) }
    }

    /// Sets the label of `key`'s item (what Seahorse shows); the value is
    /// unchanged. ``KeychainError/itemNotFound`` when there is none; the
    /// kernel keyring keeps no labels.
    public func setLabel(_ label: String, forKey key: KeychainAttributes) throws(KeychainError) {
        try key.validate()
        guard !label.utf8.contains(0) else { throw .invalidArgument }
        resumeDeliveryAfterFork()
        try lock.withLock { () throws(KeychainError) in try interface.setLabel(label, forKey: key) }
    }

    /// The accounts that have an item in `service`, sorted. Values are not read.
    public func accounts(inService service: String = KeychainAttributes.defaultService) throws(KeychainError) -> [String] {
        guard !service.isEmpty, !service.utf8.contains(0) else { throw .invalidArgument }
        resumeDeliveryAfterFork()
        return try lock.withLock { () throws(KeychainError) in try interface.accounts(inService: service) }
    }

    /// What a message about `error`, thrown by this keychain, adds to the
    /// error's description: the backend's words for it, if any.
    public func failureDetail(for error: KeychainError) -> String? {
        interface.failureDetail(for: error)
    }

    /// The store the backend keeps its items in, as it says.
    public var storeIdentity: KeychainStoreIdentity? { interface.storeIdentity }

    /// The backend's.
    public var persistence: KeychainPersistence? { interface.persistence }

    // MARK: Observers

    /// Calls `handler` after every mutation attempt on `key` through this
    /// keychain, successful or not, with the attempt's outcome; and, when
    /// the backend can tell (both of this package's can), whenever another
    /// process or another keychain creates, changes or removes the key's
    /// item (``KeychainEvent/changed``, ``KeychainEvent/deleted``).
    ///
    /// A mutation attempt's handler runs on the thread that made the
    /// attempt, after the attempt. Changes made elsewhere are delivered on a
    /// thread the keychain starts with its first observer and ends with its
    /// last. Either way no lock is held: a handler may use this keychain,
    /// including ``removeObserver(_:)`` on itself.
    public func addObserver(
        forKey key: KeychainAttributes,
        _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) -> KeychainObservationToken {
        let token = observers.add(forKey: key, handler)
        updateDelivery()
        return token
    }

    /// Removes an observer. Returns `false` when the token is unknown or was
    /// already removed. A notification already running may still call it.
    /// Removing the last observer ends the delivery thread, and waits until
    /// it has (a handler it runs included), unless called from that handler.
    @discardableResult
    public func removeObserver(_ token: KeychainObservationToken) -> Bool {
        let removed = observers.remove(token)
        updateDelivery()
        return removed
    }

    /// Removes every observer, and ends the thread delivering changes made
    /// elsewhere: waits until it has, a handler it runs included, unless
    /// called from that handler.
    public func removeAllObservers() {
        observers.removeAll()
        updateDelivery()
    }

    deinit {
        let current = delivery.withLock { current in
            defer { current = nil }
            return current
        }
        guard let current else { return }
        if current.belongsToThisProcess { current.stop() } else { current.abandon() }
    }

    // MARK: Internals

    /// Brings the delivery thread in line with the observed keys: started
    /// with the first, told of every change to the set, stopped with the
    /// last; in a fork()ed child, the parent's is dropped and the child
    /// gets its own.
    private func updateDelivery() {
        var listening: ChangeDelivery?
        let stopped = delivery.withLock { current -> ChangeDelivery? in
            deliveryGeneration.store(ForkGeneration.current, ordering: .releasing)
            if let inherited = current, !inherited.belongsToThisProcess {
                inherited.abandon()
                current = nil
            }
            let keys = observers.observedKeys
            if keys.isEmpty {
                defer { current = nil }
                return current
            }
            if let running = current {
                // Only new keys are waited for: a removal never waits on a callback.
                if running.watch(keys) { listening = running }
            } else if let source = interface.makeOutsideChangeSource() {
                current = ChangeDelivery.start(source: source, keys: keys) { [weak self] changes in
                    self?.deliverOutside(changes)
                }
                if current == nil { source.close() }  // no thread: own writes only
                listening = current
            }
            return nil
        }
        stopped?.stop()
        listening?.waitUntilListening()
    }

    /// In a fork()ed child whose keys are observed: its own delivery thread.
    private func resumeDeliveryAfterFork() {
        if deliveryGeneration.load(ordering: .acquiring) != ForkGeneration.current { updateDelivery() }
    }

    /// Tells observers, and Observation, of changes made elsewhere.
    private func deliverOutside(_ changes: [OutsideChange]) {
        for change in changes {
            switch change {
            case let .changed(key): notifyOutside(key, .changed)
            case let .deleted(key): notifyOutside(key, .deleted)
            case .everything: for key in observers.observedKeys { notifyOutside(key, .changed) }
            }
        }
    }

    private func notifyOutside(_ key: KeychainAttributes, _ event: KeychainEvent) {
        registrar.willSet(self, keyPath: keyPath(for: key))
        registrar.didSet(self, keyPath: keyPath(for: key))
        observers.notify(KeychainChange(key: key, event: event, error: nil))
    }

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
        registrar.willSet(self, keyPath: keyPath(for: key))
        let error: KeychainError?
        do throws(KeychainError) {
            resumeDeliveryAfterFork()
            try lock.withLock { () throws(KeychainError) in try body() }
            error = nil
        } catch let failure {
            error = failure
        }
        registrar.didSet(self, keyPath: keyPath(for: key))
        observers.notify(KeychainChange(key: key, event: event, error: error))
        if let error { throw error }
    }
}

#if !KEYCHAINKIT_WITHOUT_OBSERVATION
extension Keychain: Observable, TellsObservationPerKey {}
#endif

extension Keychain where Interface == SecretServiceKeychainInterface {

    /// Creates a keychain backed by the user's Secret Service (the default
    /// collection).
    ///
    /// Also inside a Flatpak or Snap sandbox, where libsecret, the C
    /// library's `kk_open_default()`, Python's `Keychain()` and the tool
    /// use the app's portal-keyed file instead: a `Keychain`'s type names
    /// its backend, so a default chosen at run time would change the type
    /// of every program's keychain. There, open ``DefaultStore/open()``'s
    /// choice: `Keychain(interface: interface)` with the
    /// ``FileKeychainInterface`` or ``SecretServiceKeychainInterface`` it
    /// gives.
    public convenience init() {
        self.init(interface: SecretServiceKeychainInterface())
    }

    /// One keychain on the user's Secret Service shared by the process: what
    /// ``KeychainItem`` and ``KeychainStorage`` use when given none.
    /// Connecting is deferred to its first operation.
    public static var standard: Keychain { standardKeychain }
}

private let standardKeychain = Keychain<SecretServiceKeychainInterface>()

/// A keychain that tells Swift Observation of every change to a key, made
/// through it or elsewhere, whenever it tells its observers: a reader
/// tracked by it needs no other invalidation (see ``KeychainItem``).
package protocol TellsObservationPerKey: AnyObject {}
