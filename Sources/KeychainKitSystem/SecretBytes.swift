// SPDX-License-Identifier: MIT
import CKeychainKitCrypto

/// Helpers for byte arrays that hold secrets.
extension Array where Element == UInt8 {

    /// Overwrites the array's storage with zeros, when the array owns it
    /// uniquely, and empties it: for secrets, before they are released.
    /// Best effort: copies made earlier keep their bytes.
    public mutating func wipe() {
        withUnsafeMutableBytes { keychainkit_wipe($0.baseAddress, $0.count) }
        removeAll()
    }

    /// Appends `bytes`. When that needs a larger buffer, the old one is
    /// wiped once its contents have moved, so growing a secret leaves no
    /// stale copy of it behind.
    ///
    /// (Bytes of two concrete types, not any collection: a generic called
    /// from another module runs unspecialized, and its first use makes the
    /// runtime scan every protocol conformance in the binary.)
    package mutating func appendWipingOldStorage(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { appendWipingOldStorage($0) }
    }

    /// Appends `bytes`, as ``appendWipingOldStorage(_:)-([UInt8])`` does;
    /// `bytes` must not point into this array's own storage.
    package mutating func appendWipingOldStorage(_ bytes: UnsafeRawBufferPointer) {
        if count + bytes.count > capacity {
            var larger: [UInt8] = []
            larger.reserveCapacity(Swift.max(2 * capacity, count + bytes.count, 64))
            larger.append(contentsOf: self)
            wipe()
            self = larger
        }
        append(contentsOf: bytes)
    }

    /// Whether the bytes are valid UTF-8, decided without copying them.
    package var isValidUTF8: Bool {
        var iterator = makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
