// SPDX-License-Identifier: MIT
import KeychainKitHelperProtocols
import KeychainKitAPI

/// How git's credentials are stored on the Secret Service: as git's own
/// `git-credential-libsecret` (git's contrib/credential/libsecret) stores
/// them, so a user can switch helpers in either direction and keep every
/// credential.
///
/// - attributes `protocol`, `server` (the host), `port` (decimal, when
///   given), `object` (the path, when given) and `user`, plus `xdg:schema`
///   = `org.gnome.keyring.NetworkPassword`. That helper's versions differ:
///   up to git 2.40 (Debian 12's) it stores and *searches* that schema
///   only; later ones store `org.git.Password` and search without a
///   schema. Items of the older schema are read by both; lookups here
///   leave the schema out, so both versions' items are found, and a store
///   removes the other version's item of the same attributes;
/// - label `Git: <protocol>://<host>[:<port>]/<path>`;
/// - the secret: the password, then `\npassword_expiry_utc=<time>` and
///   `\noauth_refresh_token=<token>` when git gave them.
enum GitCredentialItems {

    /// The schema of the items stored (see above): server logins'.
    static let schema = ItemSchema.networkPassword

    /// The attributes that `credential` pins down: what a lookup or erase
    /// matches, and (with the schema) what a store writes. (The schema's
    /// `domain` and `authtype` git never gives: they are never stored.)
    static func attributes(of credential: GitCredential) -> [String: String] {
        var attributes: [String: String] = [:]
        attributes["protocol"] = credential.protocolName
        attributes["server"] = credential.host
        attributes["port"] = credential.port.map { String($0) }
        attributes["object"] = credential.path
        attributes["user"] = credential.username
        return attributes
    }

    static func label(of credential: GitCredential) -> String {
        let port = credential.port.map { ":\($0)" } ?? ""
        return "Git: \(credential.protocolName ?? "")://\(credential.host ?? "")\(port)/\(credential.path ?? "")"
    }

    /// The secret stored for `credential` (see the type's description).
    static func secret(of credential: GitCredential) -> [UInt8] {
        var secret = credential.password ?? []
        if let expiry = credential.passwordExpiryUTC {
            secret.appendWipingOldStorage(Array("\npassword_expiry_utc=\(expiry)".utf8))
        }
        if let token = credential.oauthRefreshToken {
            secret.appendWipingOldStorage(Array("\noauth_refresh_token=".utf8))
            secret.appendWipingOldStorage(token)
        }
        return secret
    }

    /// What an item holds: its `user` and the fields of its secret.
    static func credential(user: String?, secret: [UInt8]) -> GitCredential {
        var credential = GitCredential()
        credential.username = user
        var lines = secret.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)[...]
        credential.password = lines.popFirst().map { Array($0) } ?? []
        for line in lines {
            if let value = field("password_expiry_utc=", of: line) {
                credential.passwordExpiryUTC = String(decoding: value, as: UTF8.self)
            } else if let value = field("oauth_refresh_token=", of: line) {
                credential.oauthRefreshToken = Array(value)
            }
        }
        return credential
    }

    private static func field(_ prefix: String, of line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let name = Array(prefix.utf8)
        guard line.starts(with: name) else { return nil }
        return line.dropFirst(name.count)
    }
}
