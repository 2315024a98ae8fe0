// SPDX-License-Identifier: MIT
import CSDBus
import KeychainKitSystem

extension BusConnection {

    /// Sends `message`, then waits until a signal matching `rule` arrives,
    /// at most `limit` microseconds after the reply; `nil` when none came in
    /// time. The match is installed before the call is sent, so a signal
    /// the callee emits at once is never missed. Other signals handled
    /// meanwhile go to the connection's receiver as usual.
    package func call(
        _ message: BusMessage, thenAwait rule: String, atMost limit: UInt64
    ) throws(BusFailure) -> BusMessage? {
        let awaited = AwaitedMessage()
        var slot: OpaquePointer?
        let installed = rule.withCString {
            sd_bus_add_match_async(raw, &slot, $0, keepFirstMessage, nil, Unmanaged.passUnretained(awaited).toOpaque())
        }
        try BusFailure.check(installed, "subscribing to a signal")
        defer { sd_bus_slot_unref(slot) }
        _ = try call(message)
        guard try process(until: Deadline(after: limit), { awaited.message != nil }) else { return nil }
        return awaited.message
    }
}
