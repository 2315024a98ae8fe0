// SPDX-License-Identifier: MIT

/// What one client can make the daemon hold or do in one call. Past a
/// limit the call fails with `org.freedesktop.DBus.Error.LimitsExceeded`
/// and nothing changes.
enum ServerLimits {
    /// Open transfer sessions of one connection (libsecret opens one; a
    /// client that never closes its sessions stops here).
    static let sessionsPerClient = 64
    /// Open transfer sessions in all.
    static let sessions = 4096
    /// Prompts waiting for one connection.
    static let promptsPerClient = 16
    /// The largest secret: the library's `KK_MAX_VALUE_SIZE`.
    static let largestSecret = 16 << 20
    /// Attributes of one item.
    static let attributesPerItem = 64
    /// Bytes of one attribute name or value, and of a label.
    static let largestText = 4096
    /// Items named in one `GetSecrets`.
    static let itemsPerCall = 10_000
    /// Items in one collection.
    static let itemsPerCollection = 100_000
    /// Bytes of secrets, attributes and labels in the `session` collection,
    /// which lives in memory: what a keyring file may hold (the file
    /// store's largest file) bounds a collection in a file.
    static let sessionCollectionBytes = 256 << 20
    /// Calls read ahead and waiting for their turn (clients are answered
    /// one call each in turn: `FairQueue`): of one client, and their bytes
    /// (a client's first waiting call is taken whatever its size; past
    /// either, a call is refused at once and not done) ...
    static let waitingCallsPerClient = 4096
    static let waitingBytesPerClient = 64 << 20
    /// ... and of all clients together: past either, the daemon reads at
    /// most one more call per round it answers (sd-bus's `process`, which
    /// also sends the replies, reads one as it goes).
    static let waitingCalls = 65_536
    static let waitingBytes = 256 << 20
    /// Collections, and aliases.
    static let collections = 64
    static let aliases = 64
}
