// SPDX-License-Identifier: MIT

/// The objects the daemon serves, by path (below `/org/freedesktop/secrets`):
/// `collection/NAME`, `collection/NAME/N`, `aliases/ALIAS` (a collection
/// by alias), `session/N`, `prompt/N`.
enum ObjectPath: Equatable {
    case service
    case collection(String)
    case item(collection: String, number: UInt32)
    case alias(String)
    case session(UInt32)
    case prompt(UInt32)

    /// The service object's path, which every other path is below.
    static let root = "/org/freedesktop/secrets"

    /// What `path` names; `nil` for a path the daemon serves nothing at.
    init?(_ path: String) {
        if path == Self.root { self = .service; return }
        guard path.hasPrefix(Self.root + "/") else { return nil }
        let parts = path.dropFirst(Self.root.utf8.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        switch (parts.first, parts.count) {
        case ("collection", 2): self = .collection(String(parts[1]))
        case ("collection", 3):
            guard let number = UInt32(parts[2]) else { return nil }
            self = .item(collection: String(parts[1]), number: number)
        case ("aliases", 2): self = .alias(String(parts[1]))
        case ("session", 2):
            guard let number = UInt32(parts[1]) else { return nil }
            self = .session(number)
        case ("prompt", 2):
            guard let number = UInt32(parts[1]) else { return nil }
            self = .prompt(number)
        default: return nil
        }
    }

    /// The path.
    var path: String {
        switch self {
        case .service: Self.root
        case let .collection(name): "\(Self.root)/collection/\(name)"
        case let .item(collection, number): "\(Self.root)/collection/\(collection)/\(number)"
        case let .alias(alias): "\(Self.root)/aliases/\(alias)"
        case let .session(number): "\(Self.root)/session/\(number)"
        case let .prompt(number): "\(Self.root)/prompt/\(number)"
        }
    }

    /// The "no object" path of the specification (no prompt needed, no alias).
    static let none = "/"

    /// A collection name made of `label`: lowercase ASCII letters, digits
    /// and `_` (an object path's element), as gnome-keyring makes them.
    static func collectionName(fromLabel label: String) -> String {
        let name = String(label.lowercased().unicodeScalars.map { scalar -> Character in
            (scalar.isASCII && (("a"..."z").contains(scalar) || ("0"..."9").contains(scalar))) ? Character(scalar) : "_"
        })
        return name.isEmpty ? "collection" : String(name.prefix(64))
    }
}
