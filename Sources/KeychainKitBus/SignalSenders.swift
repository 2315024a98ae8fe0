// SPDX-License-Identifier: MIT
/// Who may send the signals a connection acts on.
///
/// Any peer on the session bus can emit a signal with any path, interface
/// and member, as a broadcast or sent to us alone (`dbus-send --session
/// --type=signal`); the bus daemon stamps every message with the unique
/// name of the connection that really sent it. So a signal of the Secret
/// Service (its `Service` and `Collection` interfaces) is believed only when
/// it comes from the process that owns `org.freedesktop.secrets` now, and
/// `NameOwnerChanged` only from the bus daemon itself. Others are dropped
/// unread: they can neither poison a cache nor wake an observer.
///
/// KeychainKit's own `SecretChanged` announcement comes from whichever
/// process wrote, so it cannot be authenticated by its sender; its readers
/// treat it as a hint, only about items known to be observed, at most one
/// pending per item, and verify it against the service (see
/// `SecretServiceChangeSource`).
///
/// Not thread-safe: it belongs to one connection, used by the thread that
/// drives it.
package final class SignalSenders {

    /// The unique bus name (":1.42") of the Secret Service process, or
    /// `nil` while it is not known: then no service signal is believed.
    package var serviceOwner: String?

    package init(serviceOwner: String? = nil) {
        self.serviceOwner = serviceOwner
    }

    /// Whether `signal` was sent by the Secret Service process.
    package func fromService(_ signal: ReceivedSignal) -> Bool {
        guard let owner = serviceOwner, let sender = signal.sender else { return false }
        return sender == owner
    }

    /// Whether `signal` was sent by the bus daemon.
    package static func fromBus(_ signal: ReceivedSignal) -> Bool {
        signal.sender == BusNames.Bus.name
    }
}
