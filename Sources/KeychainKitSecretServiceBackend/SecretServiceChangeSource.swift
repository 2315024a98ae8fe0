// SPDX-License-Identifier: MIT
import KeychainKitBus
import KeychainKitCore
import KeychainKitSecretService
import KeychainKitSystem
#if canImport(Glibc)
import Glibc
#endif

/// The changes other processes and other interfaces make to observed keys
/// on the Secret Service, heard on a bus connection of the watcher's own.
///
/// What it hears, and how it tells one key from another:
/// - `ItemCreated(P)`, `ItemChanged(P)` from the service, and KeychainKit's
///   own `SecretChanged(P)` (the services announce nothing for
///   `Item.SetSecret`, so our writers do): P's key is known when P is an item
///   of an observed key (each observed key is searched once, when first
///   watched), otherwise it is read from P's attributes, once per path.
/// - `ItemDeleted(P)`: reported when P was an item of an observed key.
/// - A collection deleted: the observed keys whose items it held.
/// - The service appearing on the bus (a restart): every observed key,
///   once, and paths are searched again.
///
/// Unseen: an outside `Item.SetSecret` by another tool (libsecret's
/// `secret_item_set_secret`; `secret-tool store` and Python `keyring`
/// create with replace, and are seen), and items whose attributes a locked
/// collection does not show.
///
/// Changes of one key are coalesced: a burst of them with no gap over
/// ``coalescingMicroseconds`` is delivered as one, that long after its last
/// (and at most ``longestBurstMicroseconds`` after its first): KWallet
/// announces one write twice, KeePassXC about fifty times over several
/// milliseconds.
/// Changes the interface's own writes caused are dropped (``OwnWrites``).
final class SecretServiceChangeSource: OutsideChangeSource, @unchecked Sendable {

    private static let coalescingMicroseconds = ChangeCoalescing.pauseMicroseconds

    private static let longestBurstMicroseconds = ChangeCoalescing.longestBurstMicroseconds

    /// How long a change to a key being written is held at most.
    private static let holdMicroseconds: UInt64 = 10_000_000

    /// How long to wait before trying to reach the bus again.
    private static let reconnectMicroseconds: UInt64 = 1_000_000

    private typealias Names = SecretServiceNames

    private let busAddress: String?
    private let timeoutMicroseconds: UInt64
    private let ownWrites: OwnWrites
    private let senders = SignalSenders()
    private lazy var heard = HeardSignals.queue(trusting: senders) { [unowned self] path in self.keyOfPath[path] != nil }
    /// The watcher's connection, and the calls it makes on it.
    private var client: SecretServiceClient?
    private var reconnectAt: Deadline?

    /// The item paths of observed keys, as searched and as signals told.
    private var keyOfPath: [String: KeychainAttributes] = [:]
    private var searchedKeys: Set<KeychainAttributes> = []
    /// Created or changed paths found to belong to keys nobody observes.
    private var unobservedPaths: Set<String> = []

    /// A change heard, of an observed key.
    private struct Heard {
        let key: KeychainAttributes
        let deleted: Bool
        let path: String
        let sender: String?
        /// A KeychainKit writer's own announcement.
        let announced: Bool
    }

    /// Changes of keys being written by our interface, until the write ends.
    private var held: [(heard: Heard, until: Deadline)] = []
    /// Outside changes per key, each due at the end of its coalescing window.
    private var pending: [KeychainAttributes: (deleted: Bool, due: Deadline, latest: Deadline)] = [:]
    private var everythingDue: Deadline?

    /// Signals heard and not yet classified.
    private var backlog: [HeardSignals.Signal] = []

    /// Whether the bus connection was lost: every observed key is told once
    /// the watcher is connected again.
    private var missedChanges = false

    /// Unknown paths resolved (a D-Bus call each) per call of
    /// ``waitForChanges(of:wakingOn:)``, so that stopping never waits behind
    /// a long backlog on a stuck service.
    private static let resolvesPerWait = 4

    /// The bound on each of the watcher's calls: shorter than the
    /// operations', for the same reason.
    private static let callTimeoutMicroseconds: UInt64 = 1_000_000

    init(busAddress: String?, timeoutMicroseconds: UInt64, ownWrites: OwnWrites) {
        self.busAddress = busAddress
        self.timeoutMicroseconds = min(timeoutMicroseconds, Self.callTimeoutMicroseconds)
        self.ownWrites = ownWrites
    }

    /// Connects (subscribing first) and searches the keys newly observed:
    /// the search's reply comes after the bus installed our subscriptions.
    func listen(for keys: Set<KeychainAttributes>) {
        guard let client = connected() else { return }
        search(keys, on: client)
    }

    func waitForChanges(of keys: Set<KeychainAttributes>, wakingOn wake: Int32) -> [OutsideChange] {
        guard let client = connected() else {
            waitOnly(wake, atMost: reconnectAt?.remaining ?? Self.reconnectMicroseconds)
            return []
        }
        search(keys, on: client)  // what a failed search left unsearched
        if missedChanges {
            missedChanges = false
            everythingDue = Deadline(after: 0)
        }
        client.bus.wait(orReadable: wake, atMost: backlog.isEmpty ? nextDue ?? 1_000_000 : 0)
        do throws(SecretServiceFailure) {
            // Stopped short (a peer keeps sending), the rest waits on the
            // socket for the next round: nothing is lost.
            if try client.handlePendingSignals() { ownWrites.caughtUp() }
        } catch {
            // The bus went away: changes may be missed until it is back.
            drop()
            missedChanges = true
        }
        // An announcement already waiting is not added again.
        for signal in heard.take() where !(signal.isAnnouncement && backlog.contains(signal)) { backlog.append(signal) }
        if backlog.count > HeardSignals.capacity { backlog = [HeardSignals.overflow] }
        classifyBacklog(keys, on: client)
        reconsiderHeld(keys)
        return due(keys)
    }

    /// Classifies the backlog in order, stopping after
    /// ``resolvesPerWait`` paths that needed resolving.
    private func classifyBacklog(_ keys: Set<KeychainAttributes>, on client: SecretServiceClient) {
        var resolves = 0
        var classified = 0
        for signal in backlog {
            // A call each: resolving an unknown path, verifying an announcement.
            if case let .itemChanged(path, announced) = signal.kind,
               announced || keyOfPath[path] == nil && !unobservedPaths.contains(path) {
                if resolves == Self.resolvesPerWait { break }
                resolves += 1
            }
            classify(signal, keys, on: client)
            classified += 1
        }
        backlog.removeFirst(classified)
    }

    func close() {
        client = nil
    }

    // MARK: Connection

    private func connected() -> SecretServiceClient? {
        if let client { return client }
        if let reconnectAt, reconnectAt.remaining != nil { return nil }
        do throws(SecretServiceFailure) {
            let opened = try SecretServiceClient.watching(
                busAddress: busAddress, timeoutMicroseconds: timeoutMicroseconds,
                subscribing: Names.outsideChangeMatchRules, to: heard)
            senders.serviceOwner = opened.owner
            client = opened.client
            reconnectAt = nil
        } catch {
            reconnectAt = Deadline(after: Self.reconnectMicroseconds)
        }
        return client
    }

    private func drop() {
        client = nil
        keyOfPath.removeAll()
        searchedKeys.removeAll()
        unobservedPaths.removeAll()
        reconnectAt = Deadline(after: Self.reconnectMicroseconds)
    }

    private func waitOnly(_ wake: Int32, atMost microseconds: UInt64) {
        var fd = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, Int32(min(microseconds / 1000 + 1, 1000)))
    }

    // MARK: Keys and paths

    /// Learns the item paths of keys newly observed; forgets those of keys
    /// no longer observed. A key whose search fails (no service now) is
    /// searched again on the next call.
    private func search(_ keys: Set<KeychainAttributes>, on client: SecretServiceClient) {
        if !searchedKeys.isSubset(of: keys) {
            searchedKeys.formIntersection(keys)
            keyOfPath = keyOfPath.filter { keys.contains($0.value) }
        }
        for key in keys where !searchedKeys.contains(key) {
            // Verified: a loosely matching service must not make another
            // key's changes this key's.
            guard let found = try? client.verifiedSearch(
                [Names.Attribute.service: key.service, Names.Attribute.account: key.account], cap: VerifiedSearch.keyedCap,
                reading: .attributes)
            else { return }
            for item in found.unlocked + found.locked + found.hashedLocked { keyOfPath[item.id] = key }  // verified (or hashed alike) only
            searchedKeys.insert(key)
        }
    }

    /// The key of the item at `path`, when an observed key's: known, or
    /// read from its attributes (`nil` too when it no longer exists).
    private func key(
        of path: String, _ keys: Set<KeychainAttributes>, on client: SecretServiceClient
    ) -> KeychainAttributes? {
        if let key = keyOfPath[path] { return key }
        if unobservedPaths.contains(path) { return nil }
        let attributes: [String: String]?
        do throws(SecretServiceFailure) {
            attributes = try client.itemAttributes(at: path)  // nil: gone already
        } catch let failure where failure.error == .interactionNotAllowed {
            attributes = nil  // hidden by a locked collection
        } catch {
            // Unknown, and unknowable now: it may have been any key's.
            if everythingDue == nil { everythingDue = Deadline(after: Self.coalescingMicroseconds) }
            return nil
        }
        guard let service = attributes?[Names.Attribute.service], let account = attributes?[Names.Attribute.account]
        else { return nil }
        let key = KeychainAttributes(account: account, service: service)
        if keys.contains(key) {
            keyOfPath[path] = key
            return key
        }
        if unobservedPaths.count >= 4096 { unobservedPaths.removeAll() }
        unobservedPaths.insert(path)
        return nil
    }

    /// The `Modified` time of each observed item last read for an
    /// announcement (``recentlyModified(_:on:)``).
    private var announcedModified: [String: UInt64] = [:]

    /// Whether the item at `path` was modified recently enough for a
    /// `SecretChanged(path)` announcement to be true: within the last
    /// second, or since the last announcement of it believed, or (never
    /// announced before) within the last ten seconds. Anyone on the bus can
    /// send the announcement; the item's `Modified`, read from the service,
    /// cannot be forged, so a forged announcement of an item that did not
    /// change is dropped at the cost of one read. One sent within a second
    /// of a real change reports that change (coalesced with it).
    private func recentlyModified(_ path: String, on client: SecretServiceClient) -> Bool {
        // Gone, or unreadable: nothing to report as a change of its secret.
        guard let modified = try? client.itemModified(at: path) else { return false }
        let now = UInt64(max(0, time(nil)))
        let age = now > modified ? now - modified : 0  // the service's clock is not trusted to be sane
        let earlier = announcedModified[path]
        let believed = age <= 1 || (earlier.map { modified > $0 } ?? (age <= 10))
        if believed {
            if announcedModified.count >= 4096 { announcedModified.removeAll() }
            announcedModified[path] = modified
        }
        return believed
    }

    private func classify(_ signal: HeardSignals.Signal, _ keys: Set<KeychainAttributes>, on client: SecretServiceClient) {
        switch signal.kind {
        case .everything:
            keyOfPath.removeAll()
            searchedKeys.removeAll()
            unobservedPaths.removeAll()
            if everythingDue == nil { everythingDue = Deadline(after: Self.coalescingMicroseconds) }
        case let .itemChanged(path, true):
            // Anyone's: only of an item known to be an observed key's, and
            // only when its Modified says so.
            guard let key = keyOfPath[path], recentlyModified(path, on: client) else { return }
            judge(Heard(key: key, deleted: false, path: path, sender: signal.sender, announced: true), heldUntil: nil)
        case let .itemChanged(path, false):
            unobservedPaths.remove(path)  // its attributes may name another key now
            guard let key = key(of: path, keys, on: client) else { return }
            judge(Heard(key: key, deleted: false, path: path, sender: signal.sender, announced: false), heldUntil: nil)
        case let .itemDeleted(path):
            guard let key = keyOfPath[path] else { return }
            judge(Heard(key: key, deleted: true, path: path, sender: signal.sender, announced: false), heldUntil: nil)
        case let .collectionDeleted(collection):
            for (path, key) in keyOfPath where path.hasPrefix(collection + "/") {
                judge(Heard(key: key, deleted: true, path: path, sender: signal.sender, announced: false), heldUntil: nil)
            }
        }
    }

    /// Drops a change our own write caused, holds one of a key being
    /// written (at most ``holdMicroseconds``), schedules the others.
    ///
    /// A deletion that leaves the key other items (another tool's duplicate
    /// collapsed into the item a writer kept, a replace made as create then
    /// delete) is a change of the key, not its removal.
    private func judge(_ heard: Heard, heldUntil: Deadline?) {
        let verdict = ownWrites.verdict(
            path: heard.path, deleted: heard.deleted, key: heard.key, sender: heard.sender, announced: heard.announced)
        let until = heldUntil ?? Deadline(after: Self.holdMicroseconds)
        if verdict == .held && until.remaining != nil {
            held.append((heard, until))
            return
        }
        if heard.deleted { keyOfPath[heard.path] = nil }
        if verdict == .own { return }
        let removed = heard.deleted && !keyOfPath.values.contains(heard.key)
        let latest = pending[heard.key]?.latest ?? Deadline(after: Self.longestBurstMicroseconds)
        pending[heard.key] = (removed, Deadline.earlier(Deadline(after: Self.coalescingMicroseconds), latest), latest)
    }

    /// Gives held changes another look: their writes may have ended.
    private func reconsiderHeld(_ keys: Set<KeychainAttributes>) {
        let waiting = held
        held.removeAll()
        for (heard, until) in waiting where keys.contains(heard.key) { judge(heard, heldUntil: until) }
    }

    // MARK: Delivery

    /// Microseconds until the next held or pending change needs a look.
    private var nextDue: UInt64? {
        var next: UInt64?
        for entry in pending.values { next = min(next ?? .max, entry.due.remaining ?? 0) }
        if let everythingDue { next = min(next ?? .max, everythingDue.remaining ?? 0) }
        if !held.isEmpty { next = min(next ?? .max, 5_000) }
        return next
    }

    private func due(_ keys: Set<KeychainAttributes>) -> [OutsideChange] {
        var changes: [OutsideChange] = []
        if let everything = everythingDue, everything.remaining == nil {
            everythingDue = nil
            pending.removeAll()
            return [.everything]
        }
        for (key, entry) in pending where entry.due.remaining == nil {
            pending[key] = nil
            if keys.contains(key) { changes.append(entry.deleted ? .deleted(key) : .changed(key)) }
        }
        return changes
    }
}

/// The signals a ``SecretServiceChangeSource`` hears.
enum HeardSignals {

    struct Signal: Equatable {
        enum Kind: Equatable {
            /// Created, changed, or (`announced` by a KeychainKit writer) its secret replaced.
            case itemChanged(path: String, announced: Bool)
            case itemDeleted(path: String)
            /// Its items went with it, maybe without a signal each.
            case collectionDeleted(path: String)
            case everything
        }
        let kind: Kind
        let sender: String?

        /// Whether it is a KeychainKit writer's announcement.
        var isAnnouncement: Bool {
            if case .itemChanged(_, true) = kind { return true }
            return false
        }
    }

    /// Signals kept at most; beyond, they collapse into one `everything`.
    static let capacity = 1024

    static let overflow = Signal(kind: .everything, sender: nil)

    /// A queue of the signals that matter to a watcher, from the senders
    /// that may send them (``ServiceSignal``); it follows the service's
    /// owner as the bus announces it. KeychainKit's announcements, which
    /// anyone may send, are kept only for paths `known` says are observed
    /// items, at most one pending per path: a flood of forged ones can
    /// neither fill the queue nor make it overflow into "everything".
    static func queue(trusting senders: SignalSenders, known: @escaping (String) -> Bool) -> SignalQueue<Signal> {
        SignalQueue(capacity: capacity, overflow: overflow, collapsible: \.isAnnouncement) { message in
            guard let signal = ServiceSignal(message, senders: senders), let kind = kind(of: signal) else { return nil }
            if case let .itemChanged(path, true) = kind, !known(path) { return nil }
            return Signal(kind: kind, sender: message.sender)
        }
    }

    /// What a signal means to a watcher; `nil`: nothing.
    private static func kind(of signal: ServiceSignal) -> Signal.Kind? {
        switch signal {
        case let .itemCreated(path), let .itemChanged(path): .itemChanged(path: path, announced: false)
        case let .secretChanged(path): .itemChanged(path: path, announced: true)  // verified when classified
        case let .itemDeleted(path): .itemDeleted(path: path)
        case let .collectionDeleted(path): .collectionDeleted(path: path)
        // A service gone is no change yet (reads fail as unavailable); one
        // that appears may hold anything.
        case let .ownerChanged(owner): owner == nil ? nil : .everything
        case .collectionsChanged: nil  // a collection's properties (locked, unlocked): no item changed
        }
    }
}

/// How a burst of changes to one key becomes one delivery: the header's
/// KK_OBSERVE_COALESCE_MS and KK_OBSERVE_BURST_MAX_MS (checked by the Swift
/// tests).
package enum ChangeCoalescing {

    /// The longest pause within one burst.
    package static let pauseMicroseconds: UInt64 = 25_000

    /// The longest a burst delays its delivery, from its first change.
    package static let longestBurstMicroseconds: UInt64 = 250_000
}
