import CGIO

/// The reference's name for the platform backend.
public typealias SystemKeychainInterface = SecretServiceKeychainInterface

/// A backend over the freedesktop Secret Service (gnome-keyring, KWallet,
/// KeePassXC), through libsecret and GIO.
///
/// Items carry the attributes `service` and `username` plus `xdg:schema`
/// = ``schemaName``, and the label `Password for '<account>' on '<service>'`.
/// Lookups match `service` and `username` only, in every collection, so
/// items written by `secret-tool` or Python `keyring` are found. Writes keep
/// exactly one item per key; new items go to ``collection``.
///
/// A locked item is ``KeychainError/interactionNotAllowed``, never absent:
/// this backend never shows or waits for a prompt. No session bus or no
/// provider is ``KeychainError/serviceUnavailable``. Every D-Bus call is
/// bounded by ``timeout``. The connection is opened on first use and
/// re-opened after the service restarts.
public final class SecretServiceKeychainInterface: KeychainInterfaceProtocol, Sendable {

    /// The `xdg:schema` attribute of the items this backend creates.
    public static let schemaName = "io.github.keychainkit.Password"

    /// The collection new items are created in: an alias (`"default"`, or
    /// for example `"session"` for one that is not persisted) or a
    /// collection's D-Bus object path.
    public let collection: String

    /// The D-Bus address of the bus to use, or `nil` for the session bus.
    public let busAddress: String?

    /// The bound on each call to the service.
    public let timeout: Duration

    private let connection = Locked<SecretServiceConnection?>(nil)

    /// Creates a backend that stores new items in `collection`, talks to the
    /// Secret Service on the bus at `busAddress` (the session bus when `nil`)
    /// and waits at most `timeout` for each call.
    public init(collection: String = "default", busAddress: String? = nil, timeout: Duration = .seconds(5)) {
        self.collection = collection
        self.busAddress = busAddress
        self.timeout = timeout
    }

    private var collectionPath: String {
        collection.hasPrefix("/") ? collection : "\(SecretServiceConnection.servicePath)/aliases/\(collection)"
    }

    public func readItem(_ key: KeychainAttributes) throws(KeychainError) -> [UInt8]? {
        try withConnection { connection throws(SecretServiceFailure) in
            switch try cached(key, on: connection) {
            case .absent:
                return nil
            case let .item(path):
                do throws(SecretServiceFailure) {
                    return try secret(at: path, on: connection)
                } catch let failure where failure.error == .itemNotFound {
                    connection.cache.forget(key)  // gone: search again
                }
            case nil:
                break
            }
            let found = try search(key, on: connection)
            guard let path = found.chosen else {
                if found.locked.isEmpty { return nil }
                throw SecretServiceFailure(.interactionNotAllowed)
            }
            do throws(SecretServiceFailure) {
                return try secret(at: path, on: connection)
            } catch let failure where failure.error == .itemNotFound {
                return nil  // deleted between the search and the read
            }
        }
    }

    public func updateItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) {
        try withConnection { connection throws(SecretServiceFailure) in
            switch try cached(key, on: connection) {
            case .absent:
                throw SecretServiceFailure(.itemNotFound)
            case let .item(path):
                do throws(SecretServiceFailure) {
                    return try setSecret(value, at: path, on: connection)
                } catch let failure where failure.error == .itemNotFound {
                    connection.cache.forget(key)
                }
            case nil:
                break
            }
            let found = try search(key, on: connection)
            guard let path = found.chosen else {
                throw SecretServiceFailure(found.locked.isEmpty ? .itemNotFound : .interactionNotAllowed)
            }
            try setSecret(value, at: path, on: connection)
        }
    }

    public func insertItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) {
        try withConnection { connection throws(SecretServiceFailure) in
            if case .item = try cached(key, on: connection) { throw SecretServiceFailure(.duplicateItem) }
            let found = try search(key, on: connection)
            guard found.unlocked.isEmpty, found.locked.isEmpty else {
                throw SecretServiceFailure(.duplicateItem)
            }
            let label = "Password for '\(key.account)' on '\(key.service)'"
            let reply = try connection.call(
                collectionPath, "org.freedesktop.Secret.Collection", "CreateItem",
                kk_variant_create_item_args(label, key.service, key.account, Self.schemaName,
                                            connection.encode(value), 0),
                replyType: kk_variant_type_object_path_pair())
            try refusePrompt(reply[1].string, on: connection)
        }
    }

    public func deleteItem(_ key: KeychainAttributes) throws(KeychainError) {
        try withConnection { connection throws(SecretServiceFailure) in
            if case .absent = try cached(key, on: connection) { throw SecretServiceFailure(.itemNotFound) }
            let found = try search(key, on: connection)
            connection.cache.forget(key)
            guard found.locked.isEmpty else { throw SecretServiceFailure(.interactionNotAllowed) }
            guard !found.unlocked.isEmpty else { throw SecretServiceFailure(.itemNotFound) }
            for path in found.unlocked {
                do throws(SecretServiceFailure) {
                    let reply = try connection.call(
                        path, "org.freedesktop.Secret.Item", "Delete", nil,
                        replyType: kk_variant_type_object_path())
                    try refusePrompt(reply[0].string, on: connection)
                } catch let failure where failure.error == .itemNotFound {
                    continue  // deleted by someone else meanwhile
                }
            }
        }
    }

    public func accounts(inService service: String) throws(KeychainError) -> [String] {
        try withConnection { connection throws(SecretServiceFailure) in
            let reply = try connection.call(
                SecretServiceConnection.servicePath, "org.freedesktop.Secret.Service", "SearchItems",
                kk_variant_search_service_args(service), replyType: kk_variant_type_object_paths())
            var accounts: [String] = []
            var seen = Set<[UInt8]>()  // by bytes: canonically equal names are distinct accounts
            for path in reply[0].strings + reply[1].strings {
                let attributes: Variant
                do throws(SecretServiceFailure) {
                    attributes = try connection.call(
                        path, "org.freedesktop.DBus.Properties", "Get",
                        kk_variant_property_args("org.freedesktop.Secret.Item", "Attributes"),
                        replyType: kk_variant_type_variant())
                } catch let failure where failure.error == .itemNotFound {
                    continue  // deleted meanwhile
                }
                if let username = kk_variant_property_dictionary_string(attributes.raw, "username") {
                    let account = String(cString: username)
                    g_free(username)
                    if seen.insert(Array(account.utf8)).inserted { accounts.append(account) }
                }
            }
            return accounts.sortedByBytes()
        }
    }

    // MARK: Connection

    private var timeoutMilliseconds: Int32 {
        let (seconds, attoseconds) = timeout.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(1, milliseconds))
    }

    /// Runs `body` on the open connection, opening one when needed. A
    /// connection that turns out stale is dropped, and `body` runs once more
    /// on a new one.
    private func withConnection<R>(
        _ body: (SecretServiceConnection) throws(SecretServiceFailure) -> R
    ) throws(KeychainError) -> R {
        var attemptsLeft = 2
        while true {
            attemptsLeft -= 1
            let current: SecretServiceConnection
            do throws(SecretServiceFailure) {
                current = try connection.withLock { cached throws(SecretServiceFailure) in
                    if let cached { return cached }
                    let opened = try SecretServiceConnection.open(
                        busAddress: busAddress, timeoutMilliseconds: timeoutMilliseconds)
                    cached = opened
                    return opened
                }
            } catch {
                throw error.error
            }
            do throws(SecretServiceFailure) {
                return try body(current)
            } catch {
                if error.connectionLost {
                    connection.withLock { cached in
                        if cached === current { cached = nil }
                    }
                }
                guard error.retryOnNewConnection, attemptsLeft > 0 else { throw error.error }
            }
        }
    }

    // MARK: Items

    /// What an earlier search found for `key`, if the service announced no
    /// change since.
    private func cached(
        _ key: KeychainAttributes, on connection: SecretServiceConnection
    ) throws(SecretServiceFailure) -> ItemPathCache.Entry? {
        try connection.checkOpen()
        return connection.cache.lookup(key, changes: connection.changes)
    }

    /// The items of `key` in every collection: those readable now, those in
    /// locked collections, and the one reads and updates use (the newest
    /// readable). Records the outcome in the cache when it is unambiguous.
    private func search(
        _ key: KeychainAttributes, on connection: SecretServiceConnection
    ) throws(SecretServiceFailure) -> (unlocked: [String], locked: [String], chosen: String?) {
        let changes = connection.changes
        let reply = try connection.call(
            SecretServiceConnection.servicePath, "org.freedesktop.Secret.Service", "SearchItems",
            kk_variant_search_args(key.service, key.account),
            replyType: kk_variant_type_object_paths())
        let unlocked = reply[0].strings, locked = reply[1].strings
        let chosen = try newest(unlocked, on: connection)
        if locked.isEmpty {
            connection.cache.store(chosen.map { .item(path: $0) } ?? .absent, for: key, changes: changes)
        }
        return (unlocked, locked, chosen)
    }

    private func secret(at path: String, on connection: SecretServiceConnection) throws(SecretServiceFailure) -> [UInt8] {
        let reply = try connection.call(
            path, "org.freedesktop.Secret.Item", "GetSecret",
            kk_variant_tuple1(g_variant_new_object_path(connection.sessionPath)),
            replyType: kk_variant_type_secret_reply())
        return connection.decode(reply[0])
    }

    private func setSecret(_ value: [UInt8], at path: String, on connection: SecretServiceConnection) throws(SecretServiceFailure) {
        _ = try connection.call(
            path, "org.freedesktop.Secret.Item", "SetSecret",
            kk_variant_tuple1(connection.encode(value)), replyType: nil)
    }

    /// The most recently modified of `paths` (ties broken by path), so that
    /// duplicates another tool left behind are read consistently; `nil` when empty.
    private func newest(
        _ paths: [String], on connection: SecretServiceConnection
    ) throws(SecretServiceFailure) -> String? {
        guard paths.count > 1 else { return paths.first }
        var best: (modified: UInt64, path: String)?
        for path in paths {
            let reply = try connection.call(
                path, "org.freedesktop.DBus.Properties", "Get",
                kk_variant_property_args("org.freedesktop.Secret.Item", "Modified"),
                replyType: kk_variant_type_variant())
            let candidate = (modified: UInt64(kk_variant_property_uint64(reply.raw)), path: path)
            if best == nil || candidate > best! { best = candidate }
        }
        return best?.path
    }

    /// A call that needs a prompt (to unlock, or to confirm) is refused: the
    /// prompt is dismissed and the caller gets `interactionNotAllowed`.
    private func refusePrompt(_ prompt: String, on connection: SecretServiceConnection) throws(SecretServiceFailure) {
        guard prompt != "/" else { return }
        _ = try? connection.call(prompt, "org.freedesktop.Secret.Prompt", "Dismiss", nil, replyType: nil)
        throw SecretServiceFailure(.interactionNotAllowed)
    }
}
