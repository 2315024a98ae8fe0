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
        let awaited = AwaitedSignal()
        var slot: OpaquePointer?
        let installed = rule.withCString {
            sd_bus_add_match_async(raw, &slot, $0, receiveAwaitedSignal, nil, Unmanaged.passUnretained(awaited).toOpaque())
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

/// The first signal that matched an awaited rule.
private final class AwaitedSignal {
    var message: BusMessage?
}

/// Keeps the first signal matching the awaited rule (an sd-bus match callback).
private func receiveAwaitedSignal(
    _ message: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<sd_bus_error>?
) -> Int32 {
    guard let message, let userdata else { return 0 }
    let awaited = Unmanaged<AwaitedSignal>.fromOpaque(userdata).takeUnretainedValue()
    if awaited.message == nil { awaited.message = BusMessage(owning: sd_bus_message_ref(message)) }
    return 0
}
