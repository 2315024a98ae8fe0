// SPDX-License-Identifier: MIT
import CKeychainKitMemory

/// A secret's bytes in the library's secret memory (`secret_memory.c`, the
/// pool `kk_get`'s values come from): excluded from core dumps, locked out
/// of swap where `RLIMIT_MEMLOCK` allows, wiped when released. For what a
/// handle keeps while it is open (the file store's items and master
/// secret, keys). Immutable: values holding it share one buffer, which the
/// last of them releases.
package final class SecretBuffer: @unchecked Sendable {

    private let start: UnsafeMutablePointer<CChar>

    /// How many bytes it holds.
    package let count: Int

    private init(start: UnsafeMutablePointer<CChar>, count: Int) {
        self.start = start
        self.count = count
    }

    /// A copy of `bytes`.
    package convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(start: Self.allocate(copying: bytes), count: bytes.count)
    }

    /// A copy of `bytes`, which stay the caller's.
    package convenience init(copying bytes: [UInt8]) {
        self.init(start: bytes.withUnsafeBytes(Self.allocate(copying:)), count: bytes.count)
    }

    /// Takes `bytes` in, wiping and emptying the array.
    package convenience init(wiping bytes: inout [UInt8]) {
        self.init(copying: bytes)
        bytes.wipe()
    }

    /// Secret memory holding a copy of `bytes`.
    private static func allocate(copying bytes: UnsafeRawBufferPointer) -> UnsafeMutablePointer<CChar> {
        // Out of memory: as a Swift allocation that fails.
        guard let start = keychainkit_secret_alloc(bytes.count) else { fatalError("out of memory") }
        if let source = bytes.baseAddress { UnsafeMutableRawPointer(start).copyMemory(from: source, byteCount: bytes.count) }
        return start
    }

    deinit {
        keychainkit_secret_release(start)  // wipes it
    }

    /// `body` on the bytes, which must not escape it.
    package func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: start, count: count))
    }

    /// A copy in ordinary memory, to hand on: its receiver wipes it.
    package var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }
}
