// SPDX-License-Identifier: MIT
import KeychainKitBus
import KeychainKitSecretService

/// A Secret Service backend's connection: the protocol client, and what
/// searches found for keys (``ItemPathCache``), kept current by the
/// service's change signals. Not thread-safe: its owner serialises every
/// use.
final class KeyedConnection {

    let client: SecretServiceClient

    /// Item paths and absences found for keys, kept current by the
    /// service's change signals (see ``refreshCache()``).
    var cache = ItemPathCache()

    private let signals: SignalQueue<ItemPathCache.Change>

    private init(client: SecretServiceClient, signals: SignalQueue<ItemPathCache.Change>) {
        self.client = client
        self.signals = signals
    }

    /// Opens a client (see ``SecretServiceClient/open(busAddress:timeoutMicroseconds:transfer:subscribing:to:senders:)``)
    /// that hears the service's change signals, and only the service's
    /// (``SignalSenders``).
    static func open(
        busAddress: String?, timeoutMicroseconds: UInt64, transfer: TransferPolicy
    ) throws(SecretServiceFailure) -> KeyedConnection {
        let senders = SignalSenders()
        let signals = ChangeSignals.queue(trusting: senders)
        let client = try SecretServiceClient.open(
            busAddress: busAddress, timeoutMicroseconds: timeoutMicroseconds, transfer: transfer,
            subscribing: SecretServiceNames.changeMatchRules, to: signals, senders: senders)
        let connection = KeyedConnection(client: client, signals: signals)
        // What the client learnt while it opened, before any signal since
        // is applied (a collection's signal makes it unknown again): no
        // collection hides its items when none is locked.
        if let opened = client.collectionsAtOpen {
            connection.cache.collections = opened.paths
            if !opened.anyLocked { connection.cache.hiddenCollections = [] }
        }
        return connection
    }

    /// The locked collections that hide their items from searches (see
    /// ``SecretServiceClient/hiddenCollections()``), remembered until a
    /// collection changes.
    func knownHiddenCollections() throws(SecretServiceFailure) -> [String] {
        refreshCache()
        if let known = cache.hiddenCollections { return known }
        return try freshHiddenCollections()
    }

    /// ``SecretServiceClient/hiddenCollections()`` asked of the service
    /// now, and remembered.
    func freshHiddenCollections() throws(SecretServiceFailure) -> [String] {
        refreshCache()
        let found = try client.hiddenCollections(among: cache.collections)
        refreshCache()
        cache.collections = found.collections
        cache.hiddenCollections = found.hidden
        return found.hidden
    }

    /// Handles the signals already received (``BusConnection/handlePendingSignals()``);
    /// when too many kept coming to handle them all, the cache starts over,
    /// since it can no longer know it heard every change.
    func catchUp() throws(SecretServiceFailure) {
        if !(try client.handlePendingSignals()) { cache.apply(.everything) }
    }

    /// ``catchUp()`` after a round trip to the bus daemon, which orders
    /// every signal routed before it (``BusConnection/synchronize()``).
    func synchronize() throws(SecretServiceFailure) {
        if !(try client.synchronize()) { cache.apply(.everything) }
    }

    /// Applies the changes handled so far to the cache.
    func refreshCache() {
        for change in signals.take() { cache.apply(change) }
    }
}
