// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// A variable of the environment whose value is not UTF-8. Decoding it
/// would change each bad byte into U+FFFD, naming another file or
/// directory: it is refused instead.
package struct NotUTF8: Error {
    /// The variable (or what else held the bytes).
    package let name: String

    package init(_ name: String) { self.name = name }

    /// For error messages.
    package var description: String { "\(name) is not valid UTF-8" }
}

/// The first of `arguments` (`argv`'s, as `CommandLine.unsafeArgv` gives
/// them) that is not valid UTF-8, by its index in `argv`; `nil` when all
/// are. Swift's `CommandLine.arguments` repairs such bytes (U+FFFD), so a
/// name typed would become another: tools refuse it instead.
package func firstArgumentNotUTF8(in arguments: Slice<UnsafeBufferPointer<UnsafeMutablePointer<CChar>?>>) -> Int? {
    arguments.firstIndex { $0.flatMap { String(validatingCString: $0) } == nil }
}

/// Reads the environment without changing its bytes.
package enum EnvironmentText {

    /// The value of `name`; `nil` when it is not set.
    package static func value(_ name: String) throws(NotUTF8) -> String? {
        guard let raw = getenv(name) else { return nil }
        guard let value = String(validatingCString: raw) else { throw NotUTF8(name) }
        return value
    }

    /// The value of `name` when it is an absolute path (the XDG Base
    /// Directory rule: any other value is ignored, whatever its bytes).
    package static func absolutePath(_ name: String) throws(NotUTF8) -> String? {
        guard let raw = getenv(name), raw.pointee == UInt8(ascii: "/") else { return nil }
        guard let value = String(validatingCString: raw) else { throw NotUTF8(name) }
        return value
    }
}
