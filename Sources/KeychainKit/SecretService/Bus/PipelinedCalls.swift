import CSDBus

extension BusConnection {

    /// The most calls ``calls(_:)`` keeps unanswered at once: well under
    /// the pending replies a bus daemon allows one connection (dbus-daemon's
    /// session bus: thousands; its system bus: 128).
    static let callsInFlight = 64

    /// Sends `messages` without waiting for each reply before the next (at
    /// most ``callsInFlight`` unanswered at a time) and returns their
    /// replies in the same order: one round trip's latency for many calls,
    /// instead of one each. Each reply is the answer or the failure it
    /// carries (see ``call(_:)-(BusMessage)``); a call that got no answer
    /// within its limit, or the operation's deadline, throws for all.
    func calls(_ messages: [BusMessage]) throws(BusFailure) -> [Result<BusMessage, BusFailure>] {
        var replies: [Result<BusMessage, BusFailure>?] = Array(repeating: nil, count: messages.count)
        var sent: [(index: Int, awaited: AwaitedMessage, slot: OpaquePointer?, limit: UInt64, deadline: Deadline)] = []
        defer { for call in sent { sd_bus_slot_unref(call.slot) } }  // forgets replies that never came
        var next = 0
        var answered = 0
        while answered < messages.count {
            while next < messages.count && next - answered < Self.callsInFlight {
                let message = messages[next]
                let limit = try callLimit(for: message)
                let awaited = AwaitedMessage()
                var slot: OpaquePointer?
                try BusFailure.check(
                    sd_bus_call_async(raw, &slot, message.raw, keepFirstMessage, Unmanaged.passUnretained(awaited).toOpaque(), limit),
                    "sending a D-Bus call")
                sent.append((next, awaited, slot, limit, Deadline(after: limit)))
                next += 1
            }
            // Replies come in the order the service answers; the oldest
            // unanswered call bounds the wait.
            let oldest = sent[answered]
            guard try process(until: oldest.deadline, { oldest.awaited.message != nil }), let reply = oldest.awaited.message else {
                throw timedOut(messages[oldest.index], operation: oldest.limit < timeoutMicroseconds)
            }
            replies[oldest.index] = checked(reply, to: messages[oldest.index], limit: oldest.limit)
            answered += 1
        }
        return replies.map { $0! }
    }
}
