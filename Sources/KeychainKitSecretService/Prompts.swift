// SPDX-License-Identifier: MIT
import KeychainKitBus

#if canImport(Glibc)
import Glibc
#endif

/// The service's prompts: confirmations completed, unlocks asked for when
/// the policy allows, and no wait without a bound.
extension SecretServiceClient {

    private typealias Names = SecretServiceNames

    /// How a prompt ended.
    enum PromptOutcome {
        /// The user (or the service, for a confirmation) agreed; the
        /// `Completed` signal, read up to its `result` variant.
        case completed(ServiceMessage)
        /// The user dismissed it.
        case dismissed
        /// No answer within the limit. It was dismissed, except on
        /// gnome-keyring, whose daemon (42.1) crashes when a shown unlock
        /// dialog is dismissed: there it is left up.
        case unanswered
    }

    /// Shows the prompt at `path` (no parent window) and waits at most
    /// `limit` microseconds for it to complete.
    func runPrompt(_ path: String, atMost limit: UInt64) throws(SecretServiceFailure) -> PromptOutcome {
        let request = try methodCall(path, Names.Prompt.interface, Names.Prompt.prompt)
        try request.append("")  // no parent window
        let rule = "type='signal',sender='\(destination)',path='\(path)',"
            + "interface='\(Names.Prompt.interface)',member='\(Names.Prompt.completed)'"
        // Completing it may change an item (KeePassXC's confirmations).
        let answer = try change(timed: false) { () throws(SecretServiceFailure) in
            try bus.call(request, thenAwait: rule, atMost: limit)
        }
        bus.extendOperation(by: bus.timeoutMicroseconds)  // the time spent waiting on a person is not the service's
        guard let completed = answer else {
            if !(isGnomeKeyring() ?? true) { dismiss(path) }  // unknown: as on gnome-keyring
            return .unanswered
        }
        return try completed.readBool() ? .dismissed : .completed(completed)
    }

    /// Dismisses the prompt at `path`, which was never shown (or, past its
    /// time, on a service that survives it); failures are ignored.
    func dismiss(_ path: String) {
        _ = try? call(try methodCall(path, Names.Prompt.interface, Names.Prompt.dismiss))
    }

    /// Completes a prompt the service returned for a create or delete:
    /// KeePassXC asks to confirm each, and completes the prompt at once
    /// unless its user turned confirmations on. Waits at most `limit`.
    /// Returns the `Completed` signal, read up to its result (`nil` when
    /// there was no prompt).
    @discardableResult
    func confirm(_ path: String, atMost limit: UInt64) throws(SecretServiceFailure) -> ServiceMessage? {
        guard path != Names.noObject else { return nil }
        switch try runPrompt(path, atMost: limit) {
        case let .completed(signal): return signal
        case .dismissed: throw SecretServiceFailure(.userCanceled, detail: "the confirmation prompt was dismissed")
        case .unanswered:
            throw SecretServiceFailure(
                .interactionNotAllowed, detail: "the service asked to confirm the operation and nobody answered in time")
        }
    }

    /// Unlocks `objects` (collections or items), showing the service's
    /// unlock prompt and waiting at most `limit` for the user. Throws
    /// ``KeychainError/userCanceled`` when the user dismissed it, and
    /// ``KeychainError/interactionNotAllowed`` when nobody answered in time
    /// or something stayed locked.
    package func unlock(_ objects: [String], atMost limit: UInt64) throws(SecretServiceFailure) {
        let request = try methodCall(Names.servicePath, Names.Service.interface, Names.Service.unlock)
        try request.append(objectPaths: objects)
        let reply = try call(request)
        let unlocked = try reply.readObjectPaths()
        let prompt = try reply.readString(as: "o")
        if prompt == Names.noObject {
            guard unlocked.count >= objects.count else {
                throw SecretServiceFailure(.interactionNotAllowed, detail: "the service refused to unlock \(objects)")
            }
            return
        }
        switch try runPrompt(prompt, atMost: limit) {
        case .completed: return
        case .dismissed: throw SecretServiceFailure(.userCanceled, detail: "the unlock prompt was dismissed")
        case .unanswered:
            throw SecretServiceFailure(
                .interactionNotAllowed,
                detail: "nobody answered the unlock prompt within the prompt timeout; the keychain stays locked")
        }
    }

    /// The locked collections whose items a search does not show, so that
    /// an empty search proves nothing about them: KeePassXC hides every
    /// item of a locked database (its `Items` are empty); oo7-daemon lists
    /// a locked collection's items but refuses their attributes and leaves
    /// them out of every search. A locked collection whose first item a
    /// search for that item's attributes finds (gnome-keyring, KWallet) is
    /// searched like any other. An empty locked collection looks the same
    /// as one that hides its items in `Items` too (KeePassXC), so it counts
    /// as hiding (never "absent" by mistake), but where the service keeps a
    /// locked collection's `Items` (``listsLockedItems()``). Hiding is told
    /// by behaviour, never by name: oo7-daemon serves gnome-keyring's
    /// `org.gnome.keyring.` interface too, and hides.
    ///
    /// `known` is the service's collections when the caller knows them
    /// (none was created or deleted since it asked); the answer gives them
    /// too. Their `Locked` properties are asked together: one round trip
    /// when nothing is locked.
    package func hiddenCollections(among known: [String]?) throws(SecretServiceFailure) -> (collections: [String], hidden: [String]) {
        let collections: [String]
        if let known {
            collections = known
        } else {
            let reply = try call(try Self.propertyRequest(
                Names.Service.collectionsProperty, of: Names.Service.interface, at: Names.servicePath, on: bus, to: destination))
            collections = try reply.enter("v", "ao") { () throws(SecretServiceFailure) in try reply.readObjectPaths() }
        }
        var requests: [ServiceMessage] = []
        for collection in collections {
            requests.append(try collectionPropertyRequest(Names.Collection.lockedProperty, at: collection))
        }
        var hidden: [String] = []
        for (collection, answer) in zip(collections, try calls(requests)) {
            do throws(SecretServiceFailure) {
                let reply = try answer.get()
                guard try reply.enter("v", "b", { () throws(SecretServiceFailure) in try reply.readBool() }) else { continue }
                let items = try collectionProperty(Names.Collection.itemsProperty, at: collection)
                let paths = try items.enter("v", "ao") { () throws(SecretServiceFailure) in try items.readObjectPaths() }
                guard let first = paths.first else {
                    if !listsLockedItems() { hidden.append(collection) }
                    continue
                }
                if try !searchesShow(lockedItem: first) { hidden.append(collection) }
            } catch let failure where failure.error == .itemNotFound {
                continue  // deleted since it was listed: it hides nothing
            }
        }
        return (collections, hidden)
    }

    /// Whether a search for the attributes of the locked item at `path`
    /// finds it. `false` when they cannot be read (oo7: refused; or the
    /// item is gone): nothing then shows that searches see the collection.
    /// `true` when they are shown only hashed: such a server (gnome-keyring,
    /// with a keyring loaded locked) matches searches against the hashes.
    private func searchesShow(lockedItem path: String) throws(SecretServiceFailure) -> Bool {
        let attributes: [String: String]?
        do throws(SecretServiceFailure) {
            attributes = try itemAttributes(at: path)
        } catch let failure where !failure.connectionLost {
            return false
        }
        guard let attributes, !attributes.isEmpty else { return false }
        if HashedAttributes.areHashed(attributes) { return true }
        let found = try searchItems(attributes.map { (key: $0.key, value: $0.value) })
        return found.locked.contains(path) || found.unlocked.contains(path)
    }

    /// Whether the collection at `path` is locked.
    func isLocked(_ path: String) throws(SecretServiceFailure) -> Bool {
        let reply = try collectionProperty(Names.Collection.lockedProperty, at: path)
        return try reply.enter("v", "b") { () throws(SecretServiceFailure) in try reply.readBool() }
    }

    private func collectionProperty(_ name: String, at path: String) throws(SecretServiceFailure) -> ServiceMessage {
        try call(try collectionPropertyRequest(name, at: path))
    }

    private func collectionPropertyRequest(_ name: String, at path: String) throws(SecretServiceFailure) -> ServiceMessage {
        try Self.propertyRequest(name, of: Names.Collection.interface, at: path, on: bus, to: destination)
    }

    /// A `Properties.Get` of the property `name` of `interface` at `path`
    /// of `destination`.
    static func propertyRequest(
        _ name: String, of interface: String, at path: String, on bus: BusConnection, to destination: String
    ) throws(SecretServiceFailure) -> ServiceMessage {
        let request = try bus.methodCall(to: destination, path, Names.Properties.interface, Names.Properties.get)
        try request.append(interface)
        try request.append(name)
        return request
    }

    /// The collections the answer to a `Collections` get lists, and the
    /// process that answered.
    static func collectionPaths(from listing: PendingCall, on bus: BusConnection) throws(SecretServiceFailure) -> (paths: [String], sender: String?) {
        let reply = ServiceMessage(try onBus { () throws(BusFailure) in try bus.reply(to: listing).get() })
        return (try reply.enter("v", "ao") { () throws(SecretServiceFailure) in try reply.readObjectPaths() }, reply.sender)
    }

    /// Learns the service's collections and whether any is locked
    /// (``collectionsAtOpen``) from the answers to gets sent before the
    /// service's process was known: believed only when that process
    /// answered every one. The locks were asked while `OpenSession`
    /// travelled: a service that answers in order (gnome-keyring) has them
    /// ready right after it.
    func learnCollections(_ listed: (paths: [String], sender: String?), locks: [PendingCall?]) {
        guard listed.sender == destination, locks.count == listed.paths.count else { return }
        var anyLocked = false
        for lock in locks {
            guard let lock, case let .success(answer)? = try? bus.reply(to: lock), answer.sender == destination else { return }
            let reply = ServiceMessage(answer)
            guard let locked = try? reply.enter("v", "b", { () throws(SecretServiceFailure) in try reply.readBool() }) else { return }
            anyLocked = anyLocked || locked
        }
        collectionsAtOpen = (listed.paths, anyLocked)
    }

    /// Whether the service announces a lock before it answers a later call
    /// (`CollectionChanged`), so that what the change signals say of locked
    /// collections is current once they are handled: gnome-keyring and
    /// oo7-daemon (which serve an `org.gnome.keyring` interface) do;
    /// KeePassXC stops showing a locked database's items before it
    /// announces the lock (measured), and unknown servers are taken to be
    /// as late. Only how soon to ask again depends on this; whether a
    /// collection hides its items is always told by behaviour
    /// (``hiddenCollections(among:)``).
    package func announcesLocksAtOnce() -> Bool {
        isGnomeKeyring() == true
    }

    /// Whether a locked collection's `Items` still lists its items, so that
    /// an empty one is empty: gnome-keyring and oo7-daemon (which serve an
    /// `org.gnome.keyring` interface) keep them, KeePassXC empties them.
    func listsLockedItems() -> Bool {
        isGnomeKeyring() == true
    }

    /// Whether the service is gnome-keyring or one that serves its private
    /// interface (an `org.gnome.keyring` interface on the service object:
    /// oo7-daemon), asked once per connection; `nil` when introspection
    /// failed (asked again next time).
    private func isGnomeKeyring() -> Bool? {
        if let known = serverIsGnomeKeyring { return known }
        let request = try? methodCall(Names.servicePath, Names.Introspectable.interface, Names.Introspectable.introspect)
        let found = request.flatMap { try? call($0).readString() }.map(Self.describesGnomeKeyring)
        serverIsGnomeKeyring = found
        return found
    }

    /// Learns whether the service is gnome-keyring from the reply to an
    /// `Introspect` sent before the service's process was known: believed
    /// only when that process answered it. Otherwise (no answer, or another
    /// process) it is asked again when needed.
    func learnServer(from introspection: PendingCall) {
        guard case let .success(reply)? = try? bus.reply(to: introspection), reply.sender == destination,
              let description = try? reply.readString() else { return }
        serverIsGnomeKeyring = Self.describesGnomeKeyring(description)
    }

    /// Whether an introspection describes gnome-keyring's service (its own
    /// interfaces are named `org.gnome.keyring.…`).
    private static func describesGnomeKeyring(_ description: String) -> Bool {
        // strstr, not String.contains: the latter's generic search costs a
        // one-shot process about 0.3 ms of the runtime's first uses.
        description.withCString { strstr($0, "org.gnome.keyring.") != nil }
    }
}
