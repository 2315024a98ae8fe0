// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// A point on the monotonic clock, a bound for waits.
package struct Deadline {

    private let microseconds: UInt64

    /// The deadline `duration` microseconds from now.
    package init(after duration: UInt64) {
        microseconds = Self.now() &+ duration
    }

    /// The earlier of `a` and `b`.
    package static func earlier(_ a: Deadline, _ b: Deadline) -> Deadline {
        a.microseconds <= b.microseconds ? a : b
    }

    /// This deadline, `duration` microseconds later (the latest there can be
    /// when that overflows).
    package func extended(by duration: UInt64) -> Deadline {
        let (later, overflow) = microseconds.addingReportingOverflow(duration)
        return Deadline(at: overflow ? .max : later)
    }

    private init(at microseconds: UInt64) {
        self.microseconds = microseconds
    }

    /// The later of `a` and `b`.
    package static func later(_ a: Deadline, _ b: Deadline) -> Deadline {
        a.microseconds >= b.microseconds ? a : b
    }

    /// Microseconds until the deadline, or `nil` once it has passed.
    package var remaining: UInt64? {
        let now = Self.now()
        return now < microseconds ? microseconds - now : nil
    }

    /// Microseconds on the monotonic clock, which every process of the
    /// machine shares.
    package static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000 + UInt64(time.tv_nsec) / 1000
    }
}
