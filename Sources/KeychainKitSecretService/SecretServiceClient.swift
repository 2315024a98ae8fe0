// SPDX-License-Identifier: MIT
import KeychainKitBus

/// The Secret Service protocol client: every call to the service goes
/// through it (its extensions: ``ItemQueries``, ``ItemCalls``, ``Prompts``,
/// ``VerifiedSearch``), and it is the one place that classifies the
/// service's failures (``SecretServiceFailure``) and checks what the service
/// answered: reply types, object paths, attributes.
///
/// Calls go to the unique bus name of the service process that answered
/// first, so a restarted service is noticed (the name is gone) instead of
/// being sent a stale session. A client opened with a transfer session
/// reads and writes secrets; one watching the service (``init(watching:)``)
/// only searches and reads attributes. Not thread-safe: its owner
/// serialises every use.
package final class SecretServiceClient {

    package let bus: BusConnection

    /// The transfer session secrets travel in; `nil` for a client that
    /// only watches.
    private let transferSession: TransferSession?

    /// The unique bus name of the service process (the well-known name for
    /// a client that watches: it follows the service across restarts).
    let destination: String

    /// Whether that process is gnome-keyring, once asked (see
    /// ``runPrompt(_:atMost:)``).
    var serverIsGnomeKeyring: Bool?

    /// The service's process when it is KeePassXC, whose saves a change
    /// must keep out of (see ``SaveWindow``); 0 when it is not; `nil`
    /// until asked.
    var keepassxcProcess: UInt32?

    /// The service's collections as they were when the client opened, and
    /// whether any was locked (``learnCollections(_:locks:)``); `nil` when
    /// not learnt then.
    package internal(set) var collectionsAtOpen: (paths: [String], anyLocked: Bool)?

    /// Whether a search has answered with items that do not match what was
    /// asked (``VerifiedSearch``): such a service may match `CreateItem`'s
    /// `replace` as loosely, so items are then created without it.
    var matchesLoosely = false

    /// What the operation in progress found worth telling its caller even
    /// when it succeeds (ignored items of a loosely matching service).
    private var operationNote: String?

    /// Records `text` for the operation in progress (see ``takeNote()``).
    package func note(_ text: String) {
        operationNote = text
    }

    /// The note of the operation that just ended, if any; clears it.
    package func takeNote() -> String? {
        defer { operationNote = nil }
        return operationNote
    }

    private init(bus: BusConnection, session: TransferSession?, destination: String) {
        self.bus = bus
        self.transferSession = session
        self.destination = destination
    }

    /// Connects to the bus at `busAddress` (the session bus when `nil`),
    /// subscribing `receiver` to the signals of `rules`, for a client that
    /// searches and reads attributes of whichever process owns
    /// `org.freedesktop.secrets`, with no transfer session. Returns it with
    /// that process's unique name, asked after subscribing (so a later
    /// change of owner is heard); `nil` when nothing owns the name.
    package static func watching(
        busAddress: String?, timeoutMicroseconds: UInt64, subscribing rules: [String], to receiver: BusSignalReceiver
    ) throws(SecretServiceFailure) -> (client: SecretServiceClient, owner: String?) {
        try onBus { () throws(BusFailure) in
            let bus = try BusConnection.open(
                address: busAddress, timeoutMicroseconds: timeoutMicroseconds, subscribing: rules, to: receiver)
            let owner = try bus.owner(of: SecretServiceNames.busName)
            return (SecretServiceClient(bus: bus, session: nil, destination: SecretServiceNames.busName), owner)
        }
    }

    /// The transfer session secrets travel in, settled (its key derived
    /// and known good: ``TransferSession/settle(on:)``).
    var session: TransferSession {
        get throws(SecretServiceFailure) {
            guard let transferSession else {
                throw SecretServiceFailure(.unknownError(code: -1, message: "no transfer session: this client only watches"))
            }
            try transferSession.settle(on: bus)
            return transferSession
        }
    }

    /// Whether secrets cross the bus encrypted (`false` too for a client
    /// that only watches: it carries none).
    package var transfersEncrypted: Bool { transferSession?.isEncrypted ?? false }

    /// Connects to the bus at `busAddress` (the session bus when `nil`),
    /// subscribing `receiver` to the signals of `rules`, and opens a
    /// transfer session with the Secret Service as `transfer` allows (the
    /// bus may start the service by D-Bus activation), each step bounded
    /// by the timeout. From then on `senders` names the process that
    /// answered as the service's.
    package static func open(
        busAddress: String?, timeoutMicroseconds: UInt64, transfer: TransferPolicy,
        subscribing rules: [String], to receiver: BusSignalReceiver, senders: SignalSenders
    ) throws(SecretServiceFailure) -> SecretServiceClient {
        let bus: BusConnection
        do throws(SecretServiceFailure) {
            bus = try onBus { () throws(BusFailure) in
                try BusConnection.open(address: busAddress, timeoutMicroseconds: timeoutMicroseconds, subscribing: rules, to: receiver)
            }
        } catch let failure {
            let which = busAddress == nil ? "no session bus" : "no bus at the address given"
            throw SecretServiceFailure(
                .serviceUnavailable, connectionLost: true,
                detail: "\(failure.detail ?? which), so no Secret Service; \(Self.withoutService)")
        }
        do throws(SecretServiceFailure) {
            // The first call, and with it which server it is and its
            // collections (what every first search asks before it), asked
            // together; the key pair is made while they travel. Which
            // server: gnome-keyring when the process that answers also owns
            // gnome-keyring's own bus name, asked of the bus daemon; any
            // other is introspected, along with the calls below (an
            // `Introspect` keeps gnome-keyring writing its description,
            // about 0.18 ms, before it answers `OpenSession`).
            let firstMessage = try firstCall(on: bus)
            let first = try onBus { () throws(BusFailure) in try bus.send(call: firstMessage.message) }
            let gnomeKeyringOwner = try? bus.send(call: bus.ownerRequest(of: SecretServiceNames.gnomeKeyringBusName))
            let listing = try? bus.send(call: try propertyRequest(
                SecretServiceNames.Service.collectionsProperty, of: SecretServiceNames.Service.interface,
                at: SecretServiceNames.servicePath, on: bus, to: SecretServiceNames.busName).message)
            let keys = TransferSession.KeyPair()
            let answeredBy = try awaitFirstReply(first, on: bus)
            let gnomeKeyring = answeredBy != nil && ownerOfGnomeKeyringName(gnomeKeyringOwner, on: bus) == answeredBy
            let introspection = gnomeKeyring ? nil : try? bus.send(call: try bus.methodCall(
                SecretServiceNames.busName, SecretServiceNames.servicePath, SecretServiceNames.Introspectable.interface,
                SecretServiceNames.Introspectable.introspect))
            // `OpenSession` next, not held up by the listing (gnome-keyring
            // takes 0.1 to 0.35 ms to answer it); while the key exchange
            // travels, each listed collection's lock is asked.
            var listed: (paths: [String], sender: String?)?
            var locks: [PendingCall?]?
            let (session, owner) = try TransferSession.open(
                on: bus, destination: SecretServiceNames.busName, policy: transfer, keys: keys
            ) {
                listed = listing.flatMap { try? collectionPaths(from: $0, on: bus) }
                locks = listed.map { listed in
                    listed.paths.count > BusConnection.callsInFlight ? [] : listed.paths.map { path in
                        try? bus.send(call: try propertyRequest(
                            SecretServiceNames.Collection.lockedProperty, of: SecretServiceNames.Collection.interface,
                            at: path, on: bus, to: SecretServiceNames.busName).message)
                    }
                }
            }
            // Signals are believed from the process that answered, from now
            // on (none before matters: nothing is known yet).
            senders.serviceOwner = owner
            let client = SecretServiceClient(bus: bus, session: session, destination: owner)
            if gnomeKeyring && owner == answeredBy {
                client.serverIsGnomeKeyring = true
            } else if let introspection {
                client.learnServer(from: introspection)
            }
            if let listed, let locks { client.learnCollections(listed, locks: locks) }
            return client
        } catch let failure {
            // Whatever stops us reaching the service is "unavailable",
            // unless the service refused us.
            if case .missingEntitlement = failure.error { throw failure }
            let nobody = [SecretServiceNames.BusError.serviceUnknown, SecretServiceNames.BusError.nameHasNoOwner]
            let detail = failure.remoteName.map(nobody.contains) == true
                ? "the session bus is there, but no Secret Service: nothing owns \(SecretServiceNames.busName), "
                    + "and the bus could not start one; \(Self.withoutService)"
                : failure.detail ?? "the Secret Service could not be reached; \(Self.withoutService)"
            throw SecretServiceFailure(.serviceUnavailable, connectionLost: true, detail: detail)
        }
    }

    /// Pings the service and awaits the answer before anything else:
    /// gnome-keyring (42.1 here; 50.0 in the field) aborts when a
    /// connection's `OpenSession` is its first message or follows it at
    /// once ("gkd_secret_service_get_pkcs11_session: assertion 'client'
    /// failed", then a `g_variant_new` error). Six processes opening
    /// connections in a loop, each sending `Introspect` and `OpenSession`
    /// together, crashed it within a minute; with a first reply awaited
    /// (`Ping`, `Introspect` or `Properties.Get`), 66,000 to 84,000
    /// connections did not. `Ping` costs least (GDBus and Qt answer it
    /// themselves). A service that cannot be reached fails the open here;
    /// any other answer, an error too, is the reply awaited.
    /// Returns the unique name of the process that answered (`nil` when the
    /// answer was an error).
    private static func awaitFirstReply(_ first: PendingCall, on bus: BusConnection) throws(SecretServiceFailure) -> String? {
        do throws(SecretServiceFailure) {
            return try onBus { () throws(BusFailure) in try bus.reply(to: first).get() }.sender
        } catch let failure {
            if case .serviceUnavailable = failure.error { throw failure }
            return nil
        }
    }

    /// The unique name the bus daemon gave as the owner of gnome-keyring's
    /// bus name; `nil` for no owner, an error, or an answer not from the bus.
    private static func ownerOfGnomeKeyringName(_ pending: PendingCall?, on bus: BusConnection) -> String? {
        guard let pending, case let .success(reply)? = try? bus.reply(to: pending),
              reply.sender == SecretServiceNames.Bus.name else { return nil }
        return try? reply.readString()
    }

    /// The connection's first call (see ``awaitFirstReply(_:on:)``), which
    /// may start the service by D-Bus activation.
    private static func firstCall(on bus: BusConnection) throws(SecretServiceFailure) -> ServiceMessage {
        try bus.methodCall(
            to: SecretServiceNames.busName, SecretServiceNames.servicePath, SecretServiceNames.Peer.interface,
            SecretServiceNames.Peer.ping, activating: true)
    }

    /// What a machine without a Secret Service can use instead.
    package static let withoutService =
        "for machines without one, open the kernel keyring explicitly (kk_open_kernel_keyring, KEYCHAINKIT_BACKEND=kernel)"

    /// A new call to `member` of `interface` at `path` of the service, which
    /// must not start another service process.
    func methodCall(_ path: String, _ interface: String, _ member: String) throws(SecretServiceFailure) -> ServiceMessage {
        try bus.methodCall(to: destination, path, interface, member)
    }

    /// The reply to `message`, within the timeout and the operation's
    /// deadline. While it travels, the transfer session's key is derived
    /// if it was not yet (the first call after opening).
    func call(_ message: ServiceMessage) throws(SecretServiceFailure) -> ServiceMessage {
        try bus.call(message) { transferSession?.deriveKey() }
    }

    /// The replies to `messages`, sent together (``BusConnection/calls(_:whileTheyTravel:)``),
    /// in order; the transfer session's key is derived while they travel,
    /// as in ``call(_:)``.
    func calls(_ messages: [ServiceMessage]) throws(SecretServiceFailure) -> [Result<ServiceMessage, SecretServiceFailure>] {
        try onBus { () throws(BusFailure) in
            try bus.calls(messages.map(\.message)) { transferSession?.deriveKey() }
        }.map { reply in
            reply.map(ServiceMessage.init).mapError(SecretServiceFailure.init)
        }
    }

    /// Handles the signals already received (``BusConnection/handlePendingSignals()``);
    /// `false` when it stopped short.
    package func handlePendingSignals() throws(SecretServiceFailure) -> Bool {
        try onBus { () throws(BusFailure) in try bus.handlePendingSignals() }
    }

    /// Handles every signal routed to us before this call began
    /// (``BusConnection/synchronize()``); `false` when it stopped short.
    package func synchronize() throws(SecretServiceFailure) -> Bool {
        try onBus { () throws(BusFailure) in try bus.synchronize() }
    }
}
