// SPDX-License-Identifier: MIT
/// A kind of item addressed by attributes, as libsecret's `SecretSchema`:
/// the name its items carry in `xdg:schema`, and the attribute names that
/// say which item it is. The schemas KeychainKit reads and writes are
/// written here once (libsecret's `secret-schemas.c` is the model).
public struct ItemSchema: Hashable, Sendable {

    /// The schema's name, stored in each item's ``schemaAttribute``.
    public let name: String

    /// The attributes that identify an item of the schema; two items with
    /// the same values (or absence) of each are copies of one item.
    public let attributeNames: [String]

    public init(name: String, attributeNames: [String]) {
        self.name = name
        self.attributeNames = attributeNames
    }

    /// The attribute that names an item's schema, as libsecret writes it.
    public static let schemaAttribute = "xdg:schema"

    /// KeychainKit's keyed items: `service` and `username` (the names
    /// Python `keyring`, go-keyring and keyring-rs use too).
    public static let keychainKitPassword = ItemSchema(
        name: "io.github.keychainkit.Password", attributeNames: ["service", "username"])

    /// libsecret's network passwords: server logins (``ServerLogin``) and
    /// git's credentials, as `git-credential-libsecret` stores them.
    public static let networkPassword = ItemSchema(
        name: "org.gnome.keyring.NetworkPassword",
        attributeNames: ["server", "user", "protocol", "port", "object", "domain", "authtype"])

    /// Docker's and Podman's registry logins, as
    /// `docker-credential-secretservice` (docker-credential-helpers) stores
    /// them: `label` is always "Docker Credentials", `docker_cli` "1".
    public static let dockerCredentials = ItemSchema(
        name: "io.docker.Credentials", attributeNames: ["label", "server", "username", "docker_cli"])

    /// Whether `item` carries this schema's name.
    public func isSchema(of item: AttributeItem) -> Bool {
        item.attribute(Self.schemaAttribute, is: name)
    }

    /// `attributes` with this schema's name added, as items are created.
    public func stamped(_ attributes: [String: String]) -> [String: String] {
        attributes.merging([Self.schemaAttribute: name]) { $1 }
    }
}
