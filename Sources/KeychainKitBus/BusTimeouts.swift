// SPDX-License-Identifier: MIT

/// How long a client waits on the bus by default, for every service it
/// calls (the Secret Service, the Secret portal): written once here.
package enum BusTimeouts {

    /// A call's reply: 5 seconds.
    package static let call: Duration = .seconds(5)

    /// An answer a person gives (a prompt, a portal's dialog): 2 minutes.
    package static let answer: Duration = .seconds(120)

    /// `duration` in microseconds, as sd-bus takes timeouts: at least 1; a
    /// duration too long to count so (past 290,000 years) is the longest
    /// that can be.
    package static func microseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        if overflow { return seconds < 0 ? 1 : UInt64(Int64.max) }
        let (microseconds, overflowAgain) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000)
        if overflowAgain { return UInt64(Int64.max) }
        return UInt64(max(1, microseconds))
    }
}
