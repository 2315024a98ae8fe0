import CSDBus

/// A connection to the Secret Service: a bus connection of our own, an
/// open transfer session with the service process that answered, and what
/// we know of where items are.
///
/// Calls go to that process's unique bus name, so a restarted service is
/// noticed (the name is gone) instead of being sent a stale session. Not
/// thread-safe: its owner serialises every use.
final class SecretServiceConnection {

    let bus: BusConnection

    /// The transfer session secrets travel in.
    let session: TransferSession

    /// The unique bus name of the service process.
    let destination: String

    /// Whether that process is gnome-keyring, once asked (see
    /// ``runPrompt(_:atMost:)``).
    var serverIsGnomeKeyring: Bool?

    /// Whether a search has answered with items that do not match what was
    /// asked (``VerifiedSearch``): such a service may match `CreateItem`'s
    /// `replace` as loosely, so items are then created without it.
    var matchesLoosely = false

    /// What the operation in progress found worth telling its caller even
    /// when it succeeds (ignored items of a loosely matching service).
    private var operationNote: String?

    /// Records `text` for the operation in progress (see ``takeNote()``).
    func note(_ text: String) {
        operationNote = text
    }

    /// The note of the operation that just ended, if any; clears it.
    func takeNote() -> String? {
        defer { operationNote = nil }
        return operationNote
    }

    /// Item paths and absences found for keys, kept current by the
    /// service's change signals (see ``refreshCache()``).
    var cache = ItemPathCache()

    private let signals: SignalQueue<ItemPathCache.Change>

    private init(bus: BusConnection, signals: SignalQueue<ItemPathCache.Change>, session: TransferSession, destination: String) {
        self.bus = bus
        self.signals = signals
        self.session = session
        self.destination = destination
    }

    /// Connects to the bus at `busAddress` (the session bus when `nil`) and
    /// opens a transfer session with the Secret Service, which the bus may
    /// start by D-Bus activation, each step bounded by the timeout.
    static func open(
        busAddress: String?, timeoutMicroseconds: UInt64, transfer: TransferPolicy
    ) throws(SecretServiceFailure) -> SecretServiceConnection {
        let senders = SignalSenders()
        let signals = ChangeSignals.queue(trusting: senders)
        let bus: BusConnection
        do throws(SecretServiceFailure) {
            bus = try BusConnection.open(
                address: busAddress, timeoutMicroseconds: timeoutMicroseconds,
                subscribing: SecretServiceNames.changeMatchRules, to: signals)
        } catch let failure {
            let which = busAddress == nil ? "no session bus" : "no bus at the address given"
            throw SecretServiceFailure(
                .serviceUnavailable, connectionLost: true,
                detail: "\(failure.detail ?? which), so no Secret Service; \(Self.withoutService)")
        }
        do throws(SecretServiceFailure) {
            let (session, owner) = try TransferSession.open(on: bus, destination: SecretServiceNames.busName, policy: transfer)
            // Signals are believed from the process that answered, from now
            // on (none before matters: nothing is cached yet).
            senders.serviceOwner = owner
            return SecretServiceConnection(bus: bus, signals: signals, session: session, destination: owner)
        } catch let failure {
            // Whatever stops us reaching the service is "unavailable",
            // unless the service refused us.
            if case .missingEntitlement = failure.error { throw failure }
            let nobody = ["org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner"]
            let detail = failure.remoteName.map(nobody.contains) == true
                ? "the session bus is there, but no Secret Service: nothing owns \(SecretServiceNames.busName), "
                    + "and the bus could not start one; \(Self.withoutService)"
                : failure.detail ?? "the Secret Service could not be reached; \(Self.withoutService)"
            throw SecretServiceFailure(.serviceUnavailable, connectionLost: true, detail: detail)
        }
    }

    /// What a machine without a Secret Service can use instead.
    static let withoutService =
        "for machines without one, open the kernel keyring explicitly (kk_open_kernel_keyring, KEYCHAINKIT_BACKEND=kernel)"

    /// A new call to `member` of `interface` at `path` of the service, which
    /// must not start another service process.
    func methodCall(_ path: String, _ interface: String, _ member: String) throws(SecretServiceFailure) -> BusMessage {
        try bus.serviceCall(destination, path, interface, member)
    }

    /// ``BusConnection/searchItems(_:at:)`` of the service process.
    func searchItems(_ attributes: some Sequence<(key: String, value: String)>) throws(SecretServiceFailure) -> (unlocked: [String], locked: [String]) {
        try bus.searchItems(attributes, at: destination)
    }

    /// ``BusConnection/itemProperty(_:at:of:)`` of the service process.
    func itemProperty(_ name: String, at path: String) throws(SecretServiceFailure) -> BusMessage {
        try bus.itemProperty(name, at: path, of: destination)
    }

    /// ``BusConnection/itemAttributes(at:of:)`` of the service process.
    func itemAttributes(at path: String) throws(SecretServiceFailure) -> [String: String]? {
        try bus.itemAttributes(at: path, of: destination)
    }

    /// The reply to `message`, within the timeout.
    func call(_ message: BusMessage) throws(SecretServiceFailure) -> BusMessage {
        try bus.call(message)
    }

    /// The locked collections that hide their items from searches (see
    /// ``hiddenCollections()``), remembered until a collection changes.
    func knownHiddenCollections() throws(SecretServiceFailure) -> [String] {
        refreshCache()
        if let known = cache.hiddenCollections { return known }
        return try freshHiddenCollections()
    }

    /// ``hiddenCollections()`` asked of the service now, and remembered.
    func freshHiddenCollections() throws(SecretServiceFailure) -> [String] {
        let hidden = try hiddenCollections()
        refreshCache()
        cache.hiddenCollections = hidden
        return hidden
    }

    /// Applies the changes handled so far to the cache.
    func refreshCache() {
        for change in signals.take() { cache.apply(change) }
    }
}
