// SPDX-License-Identifier: MIT
/// Which store a keychain's items live in: two keychains of equal identity
/// read and write the same items, whatever handle or object they go
/// through; keychains of different identities keep separate items.
///
/// - Secret Service: one per bus (every collection of it: reads look in
///   every collection).
/// - Kernel keyring: one per keyring (persistent, user, session) of the
///   calling process.
/// - In memory: one per store, shared by the interfaces made with
///   ``InMemoryKeychainInterface/init(sharingItemsWith:)``.
public struct KeychainStoreIdentity: Hashable, Sendable, CustomStringConvertible {

    /// The backend and the store within it, in words ("kernel keyring
    /// persistent").
    public let description: String

    /// The store named `description`, unique among all stores of the process.
    public init(_ description: String) {
        self.description = description
    }
}
