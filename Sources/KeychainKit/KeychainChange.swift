/// What a mutation attempt tried to do.
public enum KeychainEvent: Sendable, Equatable {
    /// An insert or update of the key's value.
    case update
    /// A removal of the key.
    case remove
}

/// One mutation attempt on a key, as delivered to observers registered with
/// ``Keychain/addObserver(forKey:_:)``.
public struct KeychainChange: Sendable, Equatable {
    /// The key the attempt addressed.
    public let key: KeychainAttributes
    /// What the attempt tried to do.
    public let event: KeychainEvent
    /// `nil` when the attempt succeeded, otherwise its error.
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
