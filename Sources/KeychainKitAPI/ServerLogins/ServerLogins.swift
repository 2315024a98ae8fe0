// SPDX-License-Identifier: MIT
import KeychainKitCore

/// Passwords for server logins (``ServerLogin``) on an ``AttributeItemStore``:
/// the Secret Service, or the in-memory keychain for tests.
///
///     let logins = ServerLogins(SecretServiceKeychainInterface())
///     let login = ServerLogin(server: "mail.example.com", account: "alice", protocolName: "imap")
///     try logins.setPassword(Array("s3cret".utf8), for: login)
///     let password = try logins.password(for: login)            // exact match
///     let accounts = try logins.accounts(onServer: "mail.example.com")   // ["alice"]
///
/// A lookup matches a login exactly: the same server and account, and the
/// same protocol, port, path, domain and authentication type — a field
/// that is `nil` matches only items without it. Each login has one item:
/// storing replaces its item (in place when it exists) and removes any
/// other item of the same login. Locked is never absent
/// (``KeychainError/interactionNotAllowed``), as everywhere.
public struct ServerLogins: Sendable {

    /// Where the items are.
    public let store: any AttributeItemStore

    /// Logins stored in `store`.
    public init(_ store: any AttributeItemStore) {
        self.store = store
    }

    /// The password of `login`, or `nil` when none is stored.
    public func password(for login: ServerLogin) throws(KeychainError) -> [UInt8]? {
        for item in try items(of: login) {
            if let secret = try store.secret(of: item) { return secret }  // nil: deleted meanwhile
        }
        return nil
    }

    /// Stores `password` for `login`, labelled `label` (by default
    /// ``ServerLogin/defaultLabel``; an existing item keeps its label).
    /// The login then has one item (``AttributeItemStore/storeOne(_:attributes:schema:label:)``).
    public func setPassword(_ password: [UInt8], for login: ServerLogin, label: String? = nil) throws(KeychainError) {
        guard login.invalidReason == nil else { throw .invalidArgument }
        try store.storeOne(password, attributes: login.attributes, schema: .networkPassword, label: label ?? login.defaultLabel)
    }

    /// Removes the password of `login`; removing an absent one succeeds.
    public func removePassword(for login: ServerLogin) throws(KeychainError) {
        for item in try items(of: login) { try store.delete(item) }
    }

    /// The accounts with a password on `server` (any protocol, port, path),
    /// sorted by their UTF-8 bytes, without duplicates. No secret is read.
    public func accounts(onServer server: String) throws(KeychainError) -> [String] {
        var seen = Set<[UInt8]>()
        return try logins(onServer: server).map(\.login.account)
            .filter { seen.insert(Array($0.utf8)).inserted }
            .sortedByBytes()
    }

    /// The logins stored for `server`, with each item's label and
    /// modification time, most recently modified first. No secret is read.
    public func logins(onServer server: String) throws(KeychainError) -> [(login: ServerLogin, item: AttributeItem)] {
        guard !server.isEmpty, !server.utf8.contains(0) else { throw .invalidArgument }
        return try store.items(matching: ["server": server]).compactMap { item in
            ServerLogin(attributes: item.attributes).map { ($0, item) }
        }
    }

    /// The items of exactly `login` (see the type's description).
    private func items(of login: ServerLogin) throws(KeychainError) -> [AttributeItem] {
        guard login.invalidReason == nil else { throw .invalidArgument }
        return try store.copies(of: login.attributes, in: .networkPassword)
    }
}
