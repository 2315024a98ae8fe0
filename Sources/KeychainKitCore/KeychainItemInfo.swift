// SPDX-License-Identifier: MIT
/// What a keychain knows of an item besides its secret: for listings that
/// read no secret (``Keychain/items(inService:)``).
public struct KeychainItemInfo: Equatable, Sendable {

    /// The item's account.
    public let account: String

    /// Its label (Seahorse shows it); `nil` where the backend keeps none
    /// (the kernel keyring).
    public let label: String?

    /// When it was created, in seconds since the Unix epoch; `nil` where
    /// the backend does not tell.
    public let created: UInt64?

    /// When it last changed, in seconds since the Unix epoch; `nil` where
    /// the backend does not tell.
    public let modified: UInt64?

    /// Item information as a backend knows it.
    public init(account: String, label: String?, created: UInt64?, modified: UInt64?) {
        self.account = account
        self.label = label
        self.created = created
        self.modified = modified
    }

    /// The label items get when created: the one Python `keyring` and
    /// libsecret-based tools write.
    public static func defaultLabel(for key: KeychainAttributes) -> String {
        "Password for '\(key.account)' on '\(key.service)'"
    }
}
