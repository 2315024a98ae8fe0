// SPDX-License-Identifier: MIT
import KeychainKitCore

/// What identifies a password for a server: the login of an account on a
/// host, optionally narrowed by protocol, port, path, domain and
/// authentication type (KeychainAccess's `Keychain(server:protocolType:)`,
/// KeychainStore's `CredentialStore`).
///
/// Stored as libsecret's `org.gnome.keyring.NetworkPassword` items
/// (attributes `server`, `user`, `protocol`, `port`, `object` = the path,
/// `domain`, `authtype`), so GNOME's tools (Seahorse), other libsecret
/// clients and git's `git-credential-libsecret` find them; the fields
/// that are `nil` are not stored.
public struct ServerLogin: Hashable, Sendable {

    /// The host name (or address), without scheme or port: `"git.example.com"`.
    public var server: String
    /// The account (user name) on it; may be empty.
    public var account: String
    /// The protocol (URL scheme): `"https"`, `"imap"`, ...
    public var protocolName: String?
    /// The port, when not the protocol's default.
    public var port: UInt16?
    /// The path on the server (libsecret's `object`): `"team/repo.git"`.
    public var path: String?
    /// The authentication domain (realm): `"WORKGROUP"`.
    public var domain: String?
    /// The authentication type: `"basic"`, `"ntlm"`, ...
    public var authenticationType: String?

    /// A login of `account` on `server`, narrowed by the other fields when given.
    public init(
        server: String, account: String, protocolName: String? = nil, port: UInt16? = nil,
        path: String? = nil, domain: String? = nil, authenticationType: String? = nil
    ) {
        self.server = server
        self.account = account
        self.protocolName = protocolName
        self.port = port
        self.path = path
        self.domain = domain
        self.authenticationType = authenticationType
    }

    /// The `xdg:schema` of the items (``ItemSchema/networkPassword``).
    public static let schema = ItemSchema.networkPassword.name

    /// The attribute names of the schema (other than `xdg:schema`).
    public static let attributeNames = ItemSchema.networkPassword.attributeNames

    /// The item attributes of this login (without the schema).
    public var attributes: [String: String] {
        var attributes = ["server": server, "user": account]
        attributes["protocol"] = protocolName
        attributes["port"] = port.map { String($0) }
        attributes["object"] = path
        attributes["domain"] = domain
        attributes["authtype"] = authenticationType
        return attributes
    }

    /// The login an item's attributes describe; `nil` when they name no
    /// server or user, or a port that is not a number from 1 to 65535.
    public init?(attributes: [String: String]) {
        guard let server = attributes["server"], let account = attributes["user"] else { return nil }
        var port: UInt16?
        if let text = attributes["port"] {
            guard let number = UInt16(text), number > 0 else { return nil }
            port = number
        }
        self.init(
            server: server, account: account, protocolName: attributes["protocol"], port: port,
            path: attributes["object"], domain: attributes["domain"], authenticationType: attributes["authtype"])
    }

    /// The label Seahorse shows, as libsecret's tools write it:
    /// `<account>@<server>` plus the URL parts given.
    public var defaultLabel: String {
        var text = "\(account)@\(server)"
        if let port { text += ":\(port)" }
        if let path { text += "/\(path)" }
        if let protocolName { text = "\(protocolName)://\(text)" }
        return text
    }

    /// Why this login cannot be stored, or `nil` when it can: the server
    /// must be non-empty; no field may hold NUL.
    public var invalidReason: String? {
        if server.isEmpty { return "the server is empty" }
        if attributes.values.contains(where: { $0.utf8.contains(0) }) { return "a field contains a NUL character" }
        return nil
    }
}
