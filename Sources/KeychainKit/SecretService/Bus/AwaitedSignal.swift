import CSDBus

#if canImport(Glibc)
import Glibc
#endif

extension BusConnection {

    /// Sends `message`, then waits until a signal matching `rule` arrives,
    /// at most `limit` microseconds after the reply; `nil` when none came in
    /// time. The match is installed before the call is sent, so a signal
    /// the callee emits at once is never missed. Other signals handled
    /// meanwhile go to the connection's receiver as usual.
    func call(
        _ message: BusMessage, thenAwait rule: String, atMost limit: UInt64
    ) throws(SecretServiceFailure) -> BusMessage? {
        let awaited = AwaitedMessage()
        var slot: OpaquePointer?
        let installed = rule.withCString {
            sd_bus_add_match_async(raw, &slot, $0, keepFirstMessage, nil, Unmanaged.passUnretained(awaited).toOpaque())
        }
        if installed < 0 { throw SecretServiceFailure(errno: -installed, operation: "subscribing to a signal") }
        defer { sd_bus_slot_unref(slot) }
        _ = try call(message)
        let deadline = Deadline(after: limit)
        while awaited.message == nil {
            let processed = sd_bus_process(raw, nil)
            if processed < 0 { throw SecretServiceFailure(errno: -processed, operation: "reading from the bus") }
            if awaited.message != nil { break }
            guard let left = deadline.remaining else { return nil }  // checked while messages keep coming too
            if processed > 0 { continue }
            let waited = sd_bus_wait(raw, left)
            if waited < 0 && waited != -EINTR {
                throw SecretServiceFailure(errno: -waited, operation: "waiting on the bus")
            }
        }
        return awaited.message
    }
}
