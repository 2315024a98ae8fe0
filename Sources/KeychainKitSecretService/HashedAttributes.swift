// SPDX-License-Identifier: MIT
import CKeychainKitCrypto
import KeychainKitSystem

/// How gnome-keyring shows a locked item of a keyring it loaded from disk
/// without its password (after a login that did not unlock it — SSH,
/// autologin, a fingerprint — or after the daemon restarted): the plain
/// attributes are in the encrypted part of the file, so `Attributes` holds
/// only `gkr:compat:hashed:NAME` = the lowercase hex MD5 of each value
/// (and a plain `xdg:schema`). Its searches still match on those hashes.
/// Such an item may be any key's whose values hash alike: it is locked for
/// that key, never absent, and never another key's (measured on 42.1, see
/// SERVERS-2026.md).
enum HashedAttributes {

    /// The prefix of a hashed attribute's name.
    static let prefix = "gkr:compat:hashed:"

    /// Whether `attributes` hold any hashed value.
    static func areHashed(_ attributes: [String: String]) -> Bool {
        attributes.keys.contains { $0.hasPrefix(prefix) }
    }

    /// Whether an item shown with `attributes` may hold every one of
    /// `wanted`: each name is there in plain with the same value (by bytes),
    /// or hashed with the value's hash. `nil` when that cannot be told
    /// (MD5 unavailable, as in FIPS mode).
    static func mayHold(_ wanted: [String: String], shown attributes: [String: String]) -> Bool? {
        mayHold(wanted, hashed: hashes(of: wanted), shown: attributes)
    }

    /// ``mayHold(_:shown:)`` with the hashes of `wanted`'s values made
    /// beforehand (``hashes(of:)``), for many items checked against one
    /// `wanted`.
    static func mayHold(_ wanted: [String: String], hashed: [String: String]?, shown attributes: [String: String]) -> Bool? {
        for (name, value) in wanted {
            if let plain = attributes[name] {
                guard plain.hasSameUTF8(as: value) else { return false }
            } else if let shownHash = attributes[prefix + name] {
                guard let expected = hashed?[name] else { return nil }
                guard shownHash == expected else { return false }
            } else {
                return false
            }
        }
        return true
    }

    /// The hash of each of `attributes`' values, by name; `nil` when MD5 is
    /// unavailable.
    static func hashes(of attributes: [String: String]) -> [String: String]? {
        var hashes: [String: String] = [:]
        for (name, value) in attributes {
            guard let hash = hash(value) else { return nil }
            hashes[name] = hash
        }
        return hashes
    }

    /// gnome-keyring's hash of `value`: the lowercase hex MD5 of its UTF-8
    /// bytes; `nil` when MD5 is unavailable.
    static func hash(_ value: String) -> String? {
        var digest = [UInt8](repeating: 0, count: Int(KEYCHAINKIT_MD5_BYTES))
        let bytes = Array(value.utf8)
        guard keychainkit_md5(bytes, bytes.count, &digest) == 0 else { return nil }
        return digest.map { lowercaseHex(UInt32($0), width: 2) }.joined()
    }
}
