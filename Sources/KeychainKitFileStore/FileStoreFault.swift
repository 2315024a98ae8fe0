// SPDX-License-Identifier: MIT
/// What is wrong with a keyring file's bytes: each is
/// ``KeychainError/corruptStore`` with these words, and the file is
/// left as it is.
enum FileStoreFault: Error, Equatable {
    /// Not a keyring file at all.
    case foreign(String)
    /// A keyring file of another version (found: "major.minor").
    case unsupportedVersion(String)
    /// Truncated or altered: its structure does not hold.
    case damaged(String)
    /// Parameters too weak to trust: an attacker's, not libsecret's.
    case weakParameters(iterations: UInt32, saltBytes: Int)
    /// More PBKDF2 rounds than any writer uses: deriving the key would
    /// take minutes.
    case costlyParameters(iterations: UInt32)
    /// An item's MAC verified but its contents do not parse.
    case damagedItem(String)

    /// The fault in words, for the error (no secret: structure only).
    var reason: String {
        switch self {
        case let .foreign(why): "not a keyring file: \(why)"
        case let .unsupportedVersion(found): "a keyring file of version \(found); only 1.0 is read"
        case let .damaged(why): "the keyring file is damaged: \(why)"
        case let .weakParameters(iterations, saltBytes):
            "the keyring file's key parameters are too weak (\(iterations) PBKDF2 rounds, a salt of \(saltBytes) bytes; at least \(KeyringFile.minimumIterations) and \(KeyringFile.minimumSaltBytes))"
        case let .costlyParameters(iterations):
            "the keyring file asks for \(iterations) PBKDF2 rounds, more than the \(KeyringFile.maximumIterations) read"
        case let .damagedItem(why): "an item of the keyring file is damaged: \(why)"
        }
    }
}
