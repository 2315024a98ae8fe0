// SPDX-License-Identifier: MIT
import CSDBus
import KeychainKitSystem

#if canImport(Glibc)
import Glibc
#endif

/// What a server needs of the bus beyond a client's: owning a well-known
/// name, receiving the method calls sent to a tree of objects, answering
/// them, and hearing chosen signals — each handed to a Swift closure on
/// the thread that drives the connection (``BusConnection/serve(until:watching:onWatched:due:)``).
/// sd-bus answers `org.freedesktop.DBus.Peer` itself.
package final class BusRegistration {

    private var slot: OpaquePointer?
    fileprivate let handler: (BusMessage) -> Void
    /// The connection whose ``BusConnection/waitingCalls`` the messages
    /// wait in before `handler` takes them; `nil`: handled as they come.
    private weak var queueing: BusConnection?

    fileprivate init(queueingOn connection: BusConnection? = nil, _ handler: @escaping (BusMessage) -> Void) {
        self.queueing = connection
        self.handler = handler
    }

    deinit {
        sd_bus_slot_unref(slot)
    }

    /// Hands a message sd-bus lends to the handler, or queues it for its turn.
    fileprivate func deliver(_ message: OpaquePointer) {
        let message = BusMessage(owning: sd_bus_message_ref(message))
        guard let connection = queueing else { return handler(message) }
        connection.admit(message, for: self)
    }

    fileprivate func install(_ body: (UnsafeMutablePointer<OpaquePointer?>, UnsafeMutableRawPointer) -> Int32, _ operation: String) throws(BusFailure) {
        try BusFailure.check(body(&slot, Unmanaged.passUnretained(self).toOpaque()), operation)
    }
}

/// The outcome of asking for a well-known name.
package enum NameRequest: Equatable {
    /// We own it now.
    case owned
    /// Another connection owns it and keeps it.
    case taken
}

extension BusConnection {

    /// Hands every method call to `prefix` or an object below it to
    /// `handler`, which must answer each one (``reply(to:)``,
    /// ``replyError(to:name:message:)``). Kept while the registration is.
    ///
    /// The calls are read ahead into a ``FairQueue`` bounded by `limits`
    /// and answered one per client in turn (``serve(until:watching:onWatched:due:)``),
    /// so one client's backlog does not hold up another's call. A call
    /// past its client's share is answered at once with
    /// `org.freedesktop.DBus.Error.LimitsExceeded` (dbus-daemon's answer
    /// past its own `max_replies_per_connection`) and not done.
    package func serveObjects(
        under prefix: String, limits: FairQueueLimits,
        _ handler: @escaping (BusMessage) -> Void
    ) throws(BusFailure) -> BusRegistration {
        if waitingCalls == nil { waitingCalls = FairQueue(limits: limits) }
        let registration = BusRegistration(queueingOn: self, handler)
        try registration.install({ slot, userdata in
            prefix.withCString { sd_bus_add_fallback(raw, slot, $0, deliverCall, userdata) }
        }, "serving objects under \(prefix)")
        return registration
    }

    /// Hands every message that matches `rule` (a D-Bus match rule) to
    /// `handler`. Kept while the registration is.
    package func watch(_ rule: String, _ handler: @escaping (BusMessage) -> Void) throws(BusFailure) -> BusRegistration {
        let registration = BusRegistration(handler)
        try registration.install({ slot, userdata in
            rule.withCString { sd_bus_add_match(raw, slot, $0, deliverMatch, userdata) }
        }, "subscribing to \(rule)")
        return registration
    }

    /// Asks the bus for `name`, letting a later `replacing` request take
    /// it from us; `replacing`: take it from an owner that allows that.
    /// Never queues: ``NameRequest/taken`` when another owner keeps it.
    package func requestName(_ name: String, replacing: Bool) throws(BusFailure) -> NameRequest {
        var flags = UInt64(SD_BUS_NAME_ALLOW_REPLACEMENT)
        if replacing { flags |= UInt64(SD_BUS_NAME_REPLACE_EXISTING) }
        let result = name.withCString { sd_bus_request_name(raw, $0, flags) }
        if result == -EEXIST || result == -EALREADY { return .taken }
        try BusFailure.check(result, "asking for the name \(name)")
        return .owned
    }

    /// A method return to `call`, for the caller to fill and ``send(_:)``.
    package func reply(to call: BusMessage) throws(BusFailure) -> BusMessage {
        var message: OpaquePointer?
        let result = sd_bus_message_new_method_return(call.raw, &message)
        guard result >= 0, let message else { throw BusFailure.system(-result, "creating a method return") }
        return BusMessage(owning: message)
    }

    /// Answers `call` with the D-Bus error `name` and `message`.
    package func replyError(to call: BusMessage, name: String, message text: String) throws(BusFailure) {
        var message: OpaquePointer?
        let result = name.withCString { name in
            text.withCString { text in
                var error = sd_bus_error(name: name, message: text, _need_free: 0)
                return sd_bus_message_new_method_error(call.raw, &message, &error)
            }
        }
        guard result >= 0, let message else { throw BusFailure.system(-result, "creating an error reply") }
        try send(BusMessage(owning: message))
    }

    /// Handles messages as they come until `stop` (a descriptor) is
    /// readable, and returns then; calls read but not yet answered are
    /// left unanswered (and not done). Each turn reads what has arrived
    /// (until the served objects' ``waitingCalls`` are full), then answers
    /// one waiting call of each client. When `watched` is readable it calls
    /// `onWatched` (which reads it); between turns it calls `due`, which
    /// does what is due and says in how many microseconds it wants to be
    /// called again (`nil`: only after the next message or `watched`). One
    /// `poll` waits for all of them. A connection the bus closed ends it
    /// with a failure.
    package func serve(
        until stop: Int32, watching watched: Int32 = -1, onWatched: () -> Void = {}, due: () -> UInt64?
    ) throws(BusFailure) {
        while true {
            var processed: Int32
            repeat {
                processed = sd_bus_process(raw, nil)
                try BusFailure.check(processed, "reading from the bus")
            } while processed > 0 && !(waitingCalls?.isFull ?? false)
            for (call, registration) in waitingCalls?.nextRound() ?? [] { registration.handler(call) }
            let busy = !(waitingCalls?.isEmpty ?? true)
            var timeout: UInt64 = 0
            let wanted = due()
            var milliseconds = busy ? 0 : Int32(min((wanted ?? 60_000_000) / 1000, 60_000))
            if sd_bus_get_timeout(raw, &timeout) >= 0 && timeout != UInt64.max {
                let left = timeout > Deadline.now() ? (timeout - Deadline.now() + 999) / 1000 : 0
                milliseconds = min(milliseconds, Int32(min(left, 60_000)))
            }
            var fds = [pollfd(fd: sd_bus_get_fd(raw), events: Int16(max(sd_bus_get_events(raw), 0)), revents: 0),
                       pollfd(fd: stop, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: watched, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, watched >= 0 ? 3 : 2, milliseconds) >= 0 || errno == EINTR else {
                throw BusFailure.system(errno, "waiting on the bus")
            }
            if fds[1].revents != 0 { return }
            if watched >= 0 && fds[2].revents != 0 { onWatched() }
        }
    }
}

extension BusConnection {

    /// Drops the calls `sender` has waiting: a client that has left.
    package func discardWaitingCalls(from sender: String) {
        waitingCalls?.discard(from: sender)
    }

    /// Queues `call` for its turn, or refuses it past its client's share.
    fileprivate func admit(_ call: BusMessage, for registration: BusRegistration) {
        // A malformed body is counted as the header alone; its handler refuses it.
        let size = ((try? call.bodySize()) ?? 0) + Self.callHeaderBytes
        if waitingCalls!.admit((call, registration), from: call.sender ?? "", bytes: size) { return }
        try? replyError(to: call, name: BusNames.BusError.limitsExceeded,
                        message: "this connection has more calls waiting than the service holds for one client")
    }

    /// What a waiting call costs beyond its body: sd-bus's message and header.
    private static let callHeaderBytes = 512
}

/// Passes a method call to its registration (an sd-bus object callback):
/// claimed, answered by the handler.
private func deliverCall(
    _ message: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<sd_bus_error>?
) -> Int32 {
    guard let message, let userdata else { return 0 }
    Unmanaged<BusRegistration>.fromOpaque(userdata).takeUnretainedValue().deliver(message)
    return 1
}

/// Passes a matched message to its registration (an sd-bus match callback).
private func deliverMatch(
    _ message: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<sd_bus_error>?
) -> Int32 {
    guard let message, let userdata else { return 0 }
    Unmanaged<BusRegistration>.fromOpaque(userdata).takeUnretainedValue().deliver(message)
    return 0
}
