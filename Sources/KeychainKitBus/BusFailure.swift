// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// A failure of the bus layer, as sd-bus, the kernel or the peer reported
/// it: an errno, the D-Bus error name and message when there is one, and
/// what the layer was doing. It judges nothing: what a failure means for
/// the keychain (absent, locked, unavailable, a server fault) is decided
/// once, by the protocol client (`SecretServiceFailure.init(_:)`).
package struct BusFailure: Error {

    /// What kind of failure this is.
    package enum Kind: Equatable {
        /// sd-bus or the kernel failed with ``code``.
        case system
        /// The peer answered the call with the D-Bus error ``name``
        /// (or sd-bus made one up from ``code``).
        case remote
        /// No answer came in time; `wholeOperation` when the operation's
        /// deadline ran out before the call's own timeout did.
        case noAnswer(wholeOperation: Bool)
        /// A message that is not of the type the reader expected.
        case malformed
        /// There is no bus to connect to (no address is known).
        case noBus
    }

    package let kind: Kind

    /// The errno (positive) that sd-bus or the kernel gave, or that stands
    /// for the failure (`ETIMEDOUT` for no answer, `EBADMSG` for a
    /// malformed message).
    package let code: Int32

    /// The D-Bus error name, for a ``Kind/remote`` failure.
    package let name: String?

    /// What happened, in words: the peer's error message for a
    /// ``Kind/remote`` failure, else ours (naming the call that waited,
    /// for ``Kind/noAnswer(wholeOperation:)``).
    package let message: String

    /// What the layer was doing ("reading from the bus").
    package let operation: String

    package init(_ kind: Kind, code: Int32, name: String? = nil, message: String, operation: String) {
        self.kind = kind
        self.code = code
        self.name = name
        self.message = message
        self.operation = operation
    }

    /// sd-bus or the kernel failed with the errno `code` while doing `operation`.
    package static func system(_ code: Int32, _ operation: String) -> BusFailure {
        let text = strerror(code).map { String(cString: $0) } ?? "errno \(code)"
        return BusFailure(.system, code: code, message: text, operation: operation)
    }

    /// Throws ``system(_:_:)`` for a negative sd-bus `result`.
    package static func check(_ result: Int32, _ operation: String) throws(BusFailure) {
        if result < 0 { throw system(-result, operation) }
    }

    /// A message that is not of the type expected, found while `operation`.
    package static func malformed(_ operation: String) -> BusFailure {
        BusFailure(.malformed, code: EBADMSG, message: "a message of an unexpected type", operation: operation)
    }
}
