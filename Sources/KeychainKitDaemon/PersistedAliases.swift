// SPDX-License-Identifier: MIT
import KeychainKitFileStore

/// The aliases that outlive the daemon, in `<data directory>/aliases`
/// (a private file: ``PrivateFile``): one `ALIAS COLLECTION` line each,
/// both object path elements. Kept: every alias that names a collection
/// in a file (`default` too, when it is set to another collection); not
/// the `session` alias, nor any alias of the `session` collection, which
/// end with the daemon. gnome-keyring keeps only `default` (in
/// `keyrings/default`); a file of all of them keeps what `SetAlias` was
/// told. Lines that do not parse, or that name a collection no longer
/// there, are passed over when read.
enum PersistedAliases {

    static let fileName = "aliases"

    /// The aliases the file holds, as they are written: at most `limit`.
    static func parse(_ bytes: [UInt8], limit: Int) -> [String: String] {
        var aliases: [String: String] = [:]
        for line in bytes.split(separator: UInt8(ascii: "\n")) where aliases.count < limit {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard fields.count == 2, let alias = String(validating: fields[0], as: UTF8.self),
                  let collection = String(validating: fields[1], as: UTF8.self),
                  ObjectPath.collectionName(fromLabel: alias) == alias,
                  ObjectPath.collectionName(fromLabel: collection) == collection else { continue }
            aliases[alias] = collection
        }
        return aliases
    }

    /// The file's bytes for `aliases`, sorted by alias.
    static func render(_ aliases: [String: String]) -> [UInt8] {
        var text = "# keychainkitd's aliases: ALIAS COLLECTION, one a line\n"
        for alias in aliases.keys.sorted() { text += "\(alias) \(aliases[alias]!)\n" }
        return Array(text.utf8)
    }
}
