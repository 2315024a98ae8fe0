// SPDX-License-Identifier: MIT
/// Whether a Secret Service backend may let secrets cross the bus
/// unencrypted.
///
/// Secrets travel in a transfer session. The backend opens it encrypted
/// (`dh-ietf1024-sha256-aes128-cbc-pkcs7`), which gnome-keyring, KWallet and
/// KeePassXC all offer. A service may offer only `plain`; then secrets cross
/// the session bus as they are, where any process of the user allowed to
/// monitor the bus (the session bus's default policy allows it) can read
/// them. Whether that happened is never silent: see
/// ``SecretServiceKeychainInterface/transferIsEncrypted()`` and the
/// operations' failure detail.
public enum TransferPolicy: Sendable, Hashable {

    /// Encrypted, and `plain` where the service offers nothing else (as
    /// libsecret does). The default: every server we know offers
    /// encryption, and one that owns `org.freedesktop.secrets` is given
    /// the secrets anyway.
    case preferEncrypted

    /// Encrypted only: with a service that offers only `plain`, every
    /// operation fails with ``KeychainError/missingEntitlement`` saying so.
    case requireEncrypted
}
