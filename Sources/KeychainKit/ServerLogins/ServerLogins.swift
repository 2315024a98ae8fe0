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
    public func setPassword(_ password: [UInt8], for login: ServerLogin, label: String? = nil) throws(KeychainError) {
        let same = try items(of: login)
        let kept: String
        // In place when an item of this schema exists (locked: unlocked
        // first, or refused); items of the login under another schema (git's
        // newer `org.git.Password`) are replaced by one of this schema,
        // which every libsecret client finds.
        let ours = same.filter { $0.attributes["xdg:schema"] == ServerLogin.schema }
        if let existing = ours.first(where: { !$0.isLocked }) ?? ours.first {
            try store.setSecret(password, of: existing)
            kept = existing.id
        } else {
            let attributes = login.attributes.merging(["xdg:schema": ServerLogin.schema]) { $1 }
            kept = try store.createItem(attributes: attributes, label: label ?? login.defaultLabel, value: password)
        }
        for item in same where item.id != kept { try store.delete(item) }
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
        let wanted = login.attributes
        return try store.items(matching: wanted).filter { $0.hasExactly(wanted, for: ServerLogin.attributeNames) }
    }
}
