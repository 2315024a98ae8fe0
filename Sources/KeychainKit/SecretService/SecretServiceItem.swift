/// An item of the Secret Service found by its attributes, as any tool
/// stored it (git's credential helpers, libsecret's network passwords,
/// `secret-tool`), without its secret.
///
/// ``SecretServiceKeychainInterface/items(matching:)`` finds them;
/// ``SecretServiceKeychainInterface/secret(of:)`` reads one's secret.
public struct SecretServiceItem: Hashable, Sendable {

    /// The item's D-Bus object path: who it is, while it exists.
    public let path: String

    /// Its attributes (not secret: the service stores them unencrypted).
    public let attributes: [String: String]

    /// Its label, as the service's own tools (Seahorse) show it.
    public let label: String

    /// When its secret, label or attributes last changed, in seconds since
    /// the Unix epoch.
    public let modified: UInt64

    /// Whether it is in a locked collection: reading its secret needs an
    /// unlock.
    public let isLocked: Bool

    /// An item as the service described it.
    public init(path: String, attributes: [String: String], label: String, modified: UInt64, isLocked: Bool) {
        self.path = path
        self.attributes = attributes
        self.label = label
        self.modified = modified
        self.isLocked = isLocked
    }
}
