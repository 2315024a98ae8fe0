// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// The input libFuzzer hands an entry point.
enum FuzzInput {

    /// A copy of the `size` bytes at `data` (none when `data` is `NULL`).
    static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}

/// What a fuzz entry asserts: a violation is written to standard error and
/// traps, in every build (a precondition would be gone in -Ounchecked).
enum FuzzCheck {

    static func require(_ condition: Bool, _ what: @autoclosure () -> String) {
        if !condition { fail(what()) }
    }

    static func fail(_ what: String) -> Never {
        let line = Array("kk_fuzz: violated: \(what)\n".utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        abort()
    }
}

/// With `KK_FUZZ_TRACE=1` in the environment, what an entry does, on
/// standard error (to read why an input does what it does).
enum FuzzTrace {

    static let enabled = getenv("KK_FUZZ_TRACE").map { String(cString: $0) == "1" } ?? false

    static func say(_ line: @autoclosure () -> String) {
        guard enabled else { return }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = (Int(now.tv_sec) % 1000) * 1_000_000 + Int(now.tv_nsec) / 1000
        let bytes = Array("kk_fuzz: \(microseconds) \(line())\n".utf8)
        _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
