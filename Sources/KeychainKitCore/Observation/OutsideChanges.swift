// SPDX-License-Identifier: MIT
/// A change made elsewhere — by another process, or through another
/// interface — that a backend reports to a watching keychain.
public enum OutsideChange: Sendable, Equatable {
    /// The key's item was created or changed.
    case changed(KeychainAttributes)
    /// The key's item was removed.
    case deleted(KeychainAttributes)
    /// Any key may have changed (for example, the service restarted).
    case everything
}

/// Where a keychain's changes made elsewhere come from: one per watching
/// keychain, made by its backend (``KeychainInterfaceProtocol/makeOutsideChangeSource()``).
///
/// Used by one thread only, the keychain's delivery thread: it calls
/// ``listen(for:)`` whenever the observed keys change,
/// ``waitForChanges(of:wakingOn:)`` again and again, then ``close()`` once.
public protocol OutsideChangeSource: AnyObject {

    /// Gets ready to hear the changes of `keys`: a change made elsewhere
    /// after this returns is reported by a later
    /// ``waitForChanges(of:wakingOn:)``. Bounded in time; a source that
    /// cannot reach its store returns, and tries again later.
    func listen(for keys: Set<KeychainAttributes>)

    /// Waits until changes to some of `keys` made elsewhere are due, until
    /// `wake` (a file descriptor) is readable, or for a bounded time (at most
    /// a second), and returns the changes due, possibly none. Changes of the
    /// watching keychain's own writes are not reported. Never throws: a source
    /// that cannot reach its store waits, and tries again on the next call.
    func waitForChanges(of keys: Set<KeychainAttributes>, wakingOn wake: Int32) -> [OutsideChange]

    /// Releases what the source holds (a connection). Called last.
    func close()
}
