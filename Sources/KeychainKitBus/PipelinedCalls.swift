// SPDX-License-Identifier: MIT
import CSDBus
import KeychainKitSystem

/// A method call sent and not answered yet (``BusConnection/send(call:)``):
/// its reply is awaited later (``BusConnection/reply(to:)``), so that other
/// calls, or work of the caller's own, overlap the wait.
package final class PendingCall {

    /// The call.
    package let message: BusMessage

    /// How long it may wait, in microseconds, and until when.
    package let limit: UInt64
    package let deadline: Deadline

    fileprivate let awaited = AwaitedMessage()
    fileprivate var slot: OpaquePointer?

    fileprivate init(message: BusMessage, limit: UInt64) {
        self.message = message
        self.limit = limit
        self.deadline = Deadline(after: limit)
    }

    deinit {
        sd_bus_slot_unref(slot)  // forgets a reply that never came
    }
}

extension BusConnection {

    /// Sends `message` without waiting for its reply, which may take at
    /// most the timeout, and never past the operation's deadline.
    package func send(call message: BusMessage) throws(BusFailure) -> PendingCall {
        let call = PendingCall(message: message, limit: try callLimit(for: message))
        try BusFailure.check(
            sd_bus_call_async(
                raw, &call.slot, message.raw, keepFirstMessage, Unmanaged.passUnretained(call.awaited).toOpaque(),
                call.limit),
            "sending a D-Bus call")
        return call
    }

    /// The reply to `call`, or the failure it carries (see
    /// ``call(_:whileItTravels:)``), handling other messages as they come;
    /// throws when none came within the call's limit.
    package func reply(to call: PendingCall) throws(BusFailure) -> Result<BusMessage, BusFailure> {
        guard try process(until: call.deadline, { call.awaited.message != nil }), let reply = call.awaited.message else {
            throw timedOut(call.message, operation: call.limit < timeoutMicroseconds)
        }
        return checked(reply, to: call.message, limit: call.limit)
    }

    /// The most calls ``calls(_:whileTheyTravel:)`` keeps unanswered at once: well under
    /// the pending replies a bus daemon allows one connection (dbus-daemon's
    /// session bus: thousands; its system bus: 128).
    package static let callsInFlight = 64

    /// Sends `messages` without waiting for each reply before the next (at
    /// most ``callsInFlight`` unanswered at a time) and returns their
    /// replies in the same order: one round trip's latency for many calls,
    /// instead of one each. Each reply is the answer or the failure it
    /// carries (see ``call(_:whileItTravels:)``); a call that got no answer
    /// within its limit, or the operation's deadline, throws for all.
    /// `work` runs once, after the first calls are sent and before their
    /// replies are awaited.
    package func calls(
        _ messages: [BusMessage], whileTheyTravel work: () -> Void = {}
    ) throws(BusFailure) -> [Result<BusMessage, BusFailure>] {
        var replies: [Result<BusMessage, BusFailure>] = []
        replies.reserveCapacity(messages.count)
        var sent: [PendingCall] = []
        while replies.count < messages.count {
            while sent.count < messages.count && sent.count - replies.count < Self.callsInFlight {
                sent.append(try send(call: messages[sent.count]))
            }
            if replies.isEmpty { work() }
            // Replies come in the order the service answers; the oldest
            // unanswered call bounds the wait.
            replies.append(try reply(to: sent[replies.count]))
        }
        return replies
    }
}
