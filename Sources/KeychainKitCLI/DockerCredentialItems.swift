// SPDX-License-Identifier: MIT
import KeychainKitAPI

/// How registry logins are stored on the Secret Service: as
/// `docker-credential-secretservice` (docker-credential-helpers 0.6.4,
/// Debian 12's) stores them, so a user can switch helpers in either
/// direction and keep every login.
///
/// - schema `io.docker.Credentials` (``ItemSchema/dockerCredentials``), with
///   the attributes `label` = "Docker Credentials", `server` (the server URL
///   as Docker gave it), `username` and `docker_cli` = "1";
/// - label: the server URL (0.6.4's; 0.9 and later write "Registry
///   credentials for <URL>", which their lookups do not read);
/// - the secret: the password or token, as text.
///
/// One item per server URL: a store replaces the server's item, whatever
/// its username (the upstream helper adds a second item for another
/// username, and then reads either).
enum DockerCredentialItems {

    static let schema = ItemSchema.dockerCredentials

    /// The value of the `label` attribute, `credentials.CredsLabel` upstream.
    static let labelAttribute = "Docker Credentials"

    /// What every lookup of `server` matches.
    private static func lookup(_ server: String) -> [String: String] {
        ["server": server, "docker_cli": "1"]
    }

    /// Stores `secret` as the one login of `server`.
    static func store(_ secret: [UInt8], server: String, username: String, in store: some AttributeItemStore) throws(KeychainError) {
        let attributes = lookup(server).merging(["username": username, "label": labelAttribute]) { $1 }
        let kept = try store.storeOne(secret, attributes: attributes, schema: schema, label: server)
        for item in try logins(of: server, in: store) where item.id != kept { try store.delete(item) }
    }

    /// The username and secret of `server`'s login: the most recently
    /// modified readable one with a secret (an empty secret reads as none,
    /// as upstream); `nil` when there is none.
    static func login(of server: String, in store: some AttributeItemStore) throws(KeychainError) -> (username: String, secret: [UInt8])? {
        // The one match's secret, when the store read it along.
        let found: [AttributeItem]
        var secretOfOne: [UInt8]?
        (found, secretOfOne) = try store.itemsReadingSecretOfOne(matching: lookup(server))
        defer { secretOfOne?.wipe() }
        let items = found.filter(schema.isSchema(of:))
        for item in items.filter({ !$0.isLocked }) + items.filter(\.isLocked) {
            let read: [UInt8]?
            if found.count == 1, let secret = secretOfOne {
                (read, secretOfOne) = (secret, nil)  // handed on: the caller wipes it
            } else {
                read = try store.secret(of: item)
            }
            guard let secret = read, !secret.isEmpty else { continue }  // nil: deleted meanwhile
            return (item.attributes["username"] ?? "", secret)
        }
        return nil
    }

    /// Deletes every login of `server`; none is no error.
    static func erase(_ server: String, in store: some AttributeItemStore) throws(KeychainError) {
        for item in try logins(of: server, in: store) { try store.delete(item) }
    }

    /// Every login, as upstream lists them: the items carrying the `label`
    /// attribute, each under its server URL (else its label) with its
    /// username (else "account not defined"), sorted by server URL bytes,
    /// one per server (the most recently modified).
    static func list(in store: some AttributeItemStore) throws(KeychainError) -> [(server: String, username: String)] {
        var seen = Set<[UInt8]>()
        var logins: [(server: String, username: String)] = []
        for item in try store.items(matching: ["label": labelAttribute]) {
            let server = item.attributes["server"] ?? item.label
            guard seen.insert(Array(server.utf8)).inserted else { continue }
            logins.append((server, item.attributes["username"] ?? "account not defined"))
        }
        return logins.sorted { $0.server.precedesByUTF8($1.server) }
    }

    /// The items of `server` of the schema, newest first.
    private static func logins(of server: String, in store: some AttributeItemStore) throws(KeychainError) -> [AttributeItem] {
        try store.items(matching: lookup(server)).filter(schema.isSchema(of:))
    }
}
