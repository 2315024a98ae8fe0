// SPDX-License-Identifier: MIT
/// What happened to a key: a mutation attempt through the keychain
/// (``update``, ``remove``), or a change made elsewhere (``changed``,
/// ``deleted``).
public enum KeychainEvent: Sendable, Equatable {
    /// An insert or update of the key's value through this keychain.
    case update
    /// A removal of the key through this keychain.
    case remove
    /// The key's item was created or changed elsewhere — by another process
    /// or through another keychain: read it again.
    case changed
    /// The key's item was removed elsewhere.
    case deleted
}

/// What happened to a key, as delivered to observers registered with
/// ``Keychain/addObserver(forKey:_:)``: a mutation attempt through the
/// keychain, or a change made elsewhere.
public struct KeychainChange: Sendable, Equatable {
    /// The key the attempt or change addressed.
    public let key: KeychainAttributes
    /// What the attempt tried to do, or what happened elsewhere.
    public let event: KeychainEvent
    /// `nil` when the attempt succeeded (always for a change made
    /// elsewhere), otherwise its error.
    public let error: KeychainError?

    /// Creates a change record.
    public init(key: KeychainAttributes, event: KeychainEvent, error: KeychainError?) {
        self.key = key
        self.event = event
        self.error = error
    }
}

/// Identifies an observer registered with ``Keychain/addObserver(forKey:_:)``.
public struct KeychainObservationToken: Hashable, Sendable {
    /// The token's number: unique per keychain, never reused, never 0.
    public let rawValue: UInt64

    /// The token with the given number (as a C caller received it).
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }
}
