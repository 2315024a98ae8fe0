// SPDX-License-Identifier: MIT
import CSDBus
import KeychainKitSystem

#if canImport(Glibc)
import Glibc
#endif

/// A private connection to a D-Bus message bus, over sd-bus.
///
/// sd-bus has no thread of its own: the thread that calls reads and writes
/// the socket, so the library decides when incoming signals are handled,
/// and a fork()ed child is never left waiting on a thread that only its
/// parent has. Not thread-safe: its owner serialises every use.
///
/// The connection passes the signals it subscribed to, to its
/// ``BusSignalReceiver``, when they are handled (``handlePendingSignals()``,
/// ``synchronize()``). The bus daemon queues messages to each connection in
/// order, so a signal routed to us before some call began arrives before
/// that call's reply: after any call, handling what is pending accounts for
/// every change announced before the call; ``synchronize()`` is the
/// cheapest such call.
package final class BusConnection {

    private let bus: OpaquePointer

    /// The sd-bus connection, for extensions that drive it directly.
    package var raw: OpaquePointer { bus }

    /// The process that opened the connection. sd-bus refuses to use a
    /// connection in another process (`-ECHILD`): a fork()ed child drops it
    /// and opens its own.
    package let ownerPID: pid_t

    /// The connection's socket, recorded at open: sd-bus refuses to say it
    /// in a fork()ed child, which must close its copy.
    private var socket: Int32 = -1
    private var socketIdentity: FileIdentity?

    /// The bound on each call, in microseconds.
    package let timeoutMicroseconds: UInt64

    fileprivate let receiver: BusSignalReceiver

    /// A server's method calls read and not yet answered
    /// (``serveObjects(under:limits:_:)``, ``serve(until:watching:onWatched:due:)``).
    var waitingCalls: FairQueue<(BusMessage, BusRegistration)>?

    private init(bus: OpaquePointer, timeoutMicroseconds: UInt64, receiver: BusSignalReceiver) {
        self.bus = bus
        self.ownerPID = getpid()
        self.timeoutMicroseconds = timeoutMicroseconds
        self.receiver = receiver
    }

    deinit {
        // Closes without flushing: nothing we queue needs to arrive, and a
        // stuck bus must not block us. (A fork()ed child never releases its
        // parent's connection: see ``abandon()``.)
        sd_bus_close_unref(bus)
    }

    /// Whether the calling process opened this connection (it is not a
    /// fork()ed child's inheritance).
    package var belongsToThisProcess: Bool { getpid() == ownerPID }

    /// In a fork()ed child: closes the child's copy of the socket, so the
    /// parent's connection ends when the parent closes it, and leaves the
    /// rest alone. The connection must not be used or released afterwards.
    package func abandon() {
        socketIdentity?.closeIfStill(socket)  // unless the child reused the number
        socket = -1
    }

    /// Connects to the bus at `address` (a D-Bus address), or to the session
    /// bus when `nil` (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`),
    /// authenticates, and subscribes `receiver` to the signals that match
    /// `rules`, all within `timeoutMicroseconds`. `passingFileDescriptors`:
    /// whether messages may carry file descriptors (to send one: the
    /// Secret portal's); without, the bus daemon passes us none.
    package static func open(
        address: String?, timeoutMicroseconds: UInt64, subscribing rules: [String], to receiver: BusSignalReceiver,
        passingFileDescriptors: Bool = false
    ) throws(BusFailure) -> BusConnection {
        let deadline = Deadline(after: timeoutMicroseconds)
        guard let address = address ?? sessionBusAddress() else {
            throw BusFailure(
                .noBus, code: ENOENT, message: "no session bus: neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set",
                operation: "connecting to the bus")
        }
        var opened: OpaquePointer?
        try BusFailure.check(sd_bus_new(&opened), "creating a bus connection")
        guard let bus = opened else { throw BusFailure.system(ENOMEM, "creating a bus connection") }
        // No file descriptors unless asked: the bus daemon then refuses to
        // pass us any message that carries one (a peer could otherwise fill
        // our file table with the signals it sends us).
        let started = address.withCString { sd_bus_set_address(bus, $0) } >= 0
            && sd_bus_set_bus_client(bus, 1) >= 0 && sd_bus_negotiate_fds(bus, passingFileDescriptors ? 1 : 0) >= 0
        let result = started ? sd_bus_start(bus) : -EINVAL
        guard result >= 0 else {
            sd_bus_close_unref(bus)
            throw BusFailure.system(-result, "connecting to the bus")
        }
        let connection = BusConnection(bus: opened!, timeoutMicroseconds: timeoutMicroseconds, receiver: receiver)
        connection.socket = sd_bus_get_fd(opened!)
        connection.socketIdentity = FileIdentity(of: connection.socket)
        try connection.waitUntilReady(deadline)
        for rule in rules {
            // Installed without waiting for the bus's answer: the bus handles
            // our messages in order, so every later call is ordered after it.
            let result = rule.withCString {
                sd_bus_add_match_async(
                    connection.bus, nil, $0, deliverSignal, nil,
                    Unmanaged.passUnretained(connection).toOpaque())
            }
            try BusFailure.check(result, "subscribing to signals")
        }
        return connection
    }

    // MARK: Calls

    /// A new method call to `member` of `interface` at `path` of `destination`.
    package func methodCall(
        _ destination: String, _ path: String, _ interface: String, _ member: String
    ) throws(BusFailure) -> BusMessage {
        var message: OpaquePointer?
        let result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard result >= 0, let message else { throw BusFailure.system(-result, "creating a D-Bus call") }
        return BusMessage(owning: message)
    }

    /// The bound on the whole operation in progress: every call and every
    /// wait in it ends by then (see ``beginOperation(lasting:)``); `nil`:
    /// each call is bounded by ``timeoutMicroseconds`` alone.
    private(set) var operationDeadline: Deadline?

    /// How long the operation in progress may take in all.
    private var operationMicroseconds: UInt64 = 0

    /// Starts an operation that may take at most `microseconds` in all,
    /// however many calls it makes.
    package func beginOperation(lasting microseconds: UInt64) {
        operationMicroseconds = microseconds
        operationDeadline = Deadline(after: microseconds)
    }

    /// Gives the operation in progress `microseconds` more (after waiting
    /// on a person, or for a listing of many items), and at least that much
    /// from now.
    package func extendOperation(by microseconds: UInt64) {
        guard let deadline = operationDeadline else { return }
        let (total, overflow) = operationMicroseconds.addingReportingOverflow(microseconds)
        operationMicroseconds = overflow ? .max : total
        operationDeadline = Deadline.later(deadline.extended(by: microseconds), Deadline(after: microseconds))
    }

    /// Sends `message` and waits for its reply: at most the timeout, and
    /// never past the operation's deadline.
    ///
    /// Messages that arrive meanwhile are handled as they come (signals go
    /// to the receiver, which keeps a bounded summary), never queued whole:
    /// a peer flooding us with signals during a call costs time, not
    /// memory, and the deadline is checked after each one. `work` runs
    /// once the call is sent, before its reply is awaited.
    package func call(_ message: BusMessage, whileItTravels work: () -> Void = {}) throws(BusFailure) -> BusMessage {
        let pending = try send(call: message)
        work()
        return try reply(to: pending).get()
    }

    /// How long a call sent now may wait: the timeout, and never past the
    /// operation's deadline (throws for `message` when that has passed).
    package func callLimit(for message: BusMessage) throws(BusFailure) -> UInt64 {
        guard let operationDeadline else { return timeoutMicroseconds }
        guard let left = operationDeadline.remaining else { throw timedOut(message, operation: true) }
        return min(timeoutMicroseconds, left)
    }

    /// `reply` to `message`, or the failure it carries: the service's
    /// error, or sd-bus's own timeout of a call allowed `limit`
    /// microseconds.
    package func checked(_ reply: BusMessage, to message: BusMessage, limit: UInt64) -> Result<BusMessage, BusFailure> {
        guard let error = sd_bus_message_get_error(reply.raw) else { return .success(reply) }
        if sd_bus_error_has_name(error, BusNames.BusError.noReply) > 0,
           error.pointee.message.map({ String(cString: $0) }) == BusNames.BusError.timedOutMessage {
            // sd-bus's own timer: the call's time is up. (The bus
            // daemon's NoReply, the callee left the bus, is classified.)
            return .failure(timedOut(message, operation: limit < timeoutMicroseconds))
        }
        return .failure(BusFailure(
            .remote, code: sd_bus_error_get_errno(error), name: error.pointee.name.map { String(cString: $0) },
            message: error.pointee.message.map { String(cString: $0) } ?? "",
            operation: "calling \(message.member ?? "a method")"))
    }

    /// The failure of a call that got no answer in time, naming the call,
    /// whom it went to and how long it waited.
    package func timedOut(_ message: BusMessage, operation: Bool) -> BusFailure {
        let member = message.member ?? "a call"
        let destination = message.destination ?? "the bus"
        let waited = operation
            ? "the operation's deadline (\(operationMicroseconds / 1000) ms in all) passed"
            : "no answer within \(timeoutMicroseconds / 1000) ms"
        return BusFailure(
            .noAnswer(wholeOperation: operation), code: ETIMEDOUT,
            message: "\(member) to \(destination): \(waited); the bus is there, the service did not answer in time",
            operation: "calling \(member)")
    }

    /// A new method call to `member` of `interface` at `path` of
    /// `destination` that must not start a service by D-Bus activation.
    package func serviceCall(
        _ destination: String, _ path: String, _ interface: String, _ member: String
    ) throws(BusFailure) -> BusMessage {
        let message = try methodCall(destination, path, interface, member)
        _ = sd_bus_message_set_auto_start(message.raw, 0)
        return message
    }

    /// The unique name of the process that owns the bus name `name`;
    /// `nil` when none does.
    package func owner(of name: String) throws(BusFailure) -> String? {
        let request = try ownerRequest(of: name)
        do throws(BusFailure) {
            return try call(request).readString()
        } catch let failure where failure.name == BusNames.BusError.nameHasNoOwner {
            return nil
        }
    }

    /// The bus daemon's `GetNameOwner` call for `name`, to send along with
    /// others (``owner(of:)`` sends it and waits): the reply's string is the
    /// owner's unique name; no owner is the error `NameHasNoOwner`.
    package func ownerRequest(of name: String) throws(BusFailure) -> BusMessage {
        let bus = BusNames.Bus.self
        let request = try methodCall(bus.name, bus.path, bus.interface, bus.getNameOwner)
        try request.append(name)
        return request
    }

    /// The process ID of the connection that owns the bus name `name`, as
    /// the bus daemon knows it.
    package func processID(of name: String) throws(BusFailure) -> UInt32 {
        let bus = BusNames.Bus.self
        let request = try methodCall(bus.name, bus.path, bus.interface, bus.getConnectionUnixProcessID)
        try request.append(name)
        return try call(request).readUInt32()
    }

    /// Sends `message` (a signal) without waiting for anything.
    package func send(_ message: BusMessage) throws(BusFailure) {
        try BusFailure.check(sd_bus_send(bus, message.raw, nil), "sending a signal")
    }

    /// A new signal `member` of `interface`, sent from `path`.
    package func signal(_ path: String, _ interface: String, _ member: String) throws(BusFailure) -> BusMessage {
        var message: OpaquePointer?
        let result = sd_bus_message_new_signal(bus, &message, path, interface, member)
        guard result >= 0, let message else { throw BusFailure.system(-result, "creating a D-Bus signal") }
        return BusMessage(owning: message)
    }

    /// The connection's unique name on the bus (":1.42").
    package var uniqueName: String? {
        var name: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(bus, &name) >= 0, let name else { return nil }
        return String(cString: name)
    }

    /// Waits until the connection has something to handle, `wake` is
    /// readable, or `limit` microseconds pass; handles nothing.
    package func wait(orReadable wake: Int32, atMost limit: UInt64) {
        var timeout: UInt64 = 0
        var milliseconds = Int32(min(limit / 1000, 60_000))
        if sd_bus_get_timeout(bus, &timeout) >= 0 && timeout != UInt64.max {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
            let due = timeout > nowMicroseconds ? (timeout - nowMicroseconds + 999) / 1000 : 0
            milliseconds = min(milliseconds, Int32(min(due, 60_000)))
        }
        let events = sd_bus_get_events(bus)
        var fds = [pollfd(fd: socket, events: Int16(max(events, 0)), revents: 0),
                   pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 2, milliseconds)
    }

    /// Handles every signal routed to us before this call began: a round
    /// trip to the bus daemon, then ``handlePendingSignals()``; `false` when
    /// that stopped short.
    @discardableResult
    package func synchronize() throws(BusFailure) -> Bool {
        let names = BusNames.Bus.self
        _ = try call(try methodCall(names.name, names.path, names.interface, names.getID))
        return try handlePendingSignals()
    }

    /// Handles incoming messages, waiting on the socket between them, until
    /// `done()` holds (then `true`) or `deadline` passes (`false`). The
    /// deadline is checked after every message, so a peer that keeps
    /// sending cannot hold the caller past it.
    package func process(
        until deadline: Deadline, _ done: () throws(BusFailure) -> Bool
    ) throws(BusFailure) -> Bool {
        while true {
            if try done() { return true }
            let processed = sd_bus_process(bus, nil)
            try BusFailure.check(processed, "reading from the bus")
            if try done() { return true }
            guard let left = deadline.remaining else { return false }
            if processed > 0 { continue }
            let waited = sd_bus_wait(bus, left)
            if waited < 0 && waited != -EINTR { try BusFailure.check(waited, "waiting on the bus") }
        }
    }

    /// Messages ``handlePendingSignals()`` handles at most in one call.
    package static let pendingLimit = 4096

    /// Handles every message already received or waiting on the socket,
    /// without blocking (signals go to the receiver), and returns `true`.
    /// Past ``pendingLimit`` messages (a peer keeps sending) it stops and
    /// returns `false`: the rest stays queued, unread, for the next call.
    @discardableResult
    package func handlePendingSignals() throws(BusFailure) -> Bool {
        for _ in 0..<Self.pendingLimit {
            let result = sd_bus_process(bus, nil)
            if result == 0 { return true }
            try BusFailure.check(result, "reading from the bus")
        }
        return false
    }

    // MARK: Internals

    /// Drives authentication and `Hello` until the bus is ready for calls,
    /// waiting at most until `deadline` (sd-bus's own wait is unbounded).
    private func waitUntilReady(_ deadline: Deadline) throws(BusFailure) {
        let ready = try process(until: deadline) { () throws(BusFailure) in
            let ready = sd_bus_is_ready(bus)
            try BusFailure.check(ready, "connecting to the bus")
            return ready > 0
        }
        guard ready else {
            throw BusFailure(
                .noAnswer(wholeOperation: false), code: ETIMEDOUT, message: "the bus did not let us in within the timeout",
                operation: "connecting to the bus")
        }
    }
}

/// Receives the signals a ``BusConnection`` subscribed to.
package protocol BusSignalReceiver: AnyObject {
    /// Called with each signal (borrowed for the call), in order.
    func receive(_ signal: ReceivedSignal)
}

/// The session bus's address, as sd-bus's `sd_bus_open_user` finds it:
/// `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`; `nil` when
/// neither is set.
private func sessionBusAddress() -> String? {
    if let address = getenv("DBUS_SESSION_BUS_ADDRESS"), address.pointee != 0 { return String(cString: address) }
    guard let runtime = getenv("XDG_RUNTIME_DIR"), runtime.pointee != 0 else { return nil }
    var escaped = "unix:path="
    // The directory's bytes as they are (escaped below), never decoded.
    for byte in Array(UnsafeRawBufferPointer(start: runtime, count: strlen(runtime))) + Array("/bus".utf8) {
        let plain = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "-_/.\\".utf8.contains(byte)
        if plain {
            escaped.unicodeScalars.append(Unicode.Scalar(byte))
        } else {
            escaped += "%" + lowercaseHex(UInt32(byte), width: 2)
        }
    }
    return escaped
}

/// Passes a signal to its connection's receiver (an sd-bus match callback).
private func deliverSignal(
    _ message: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<sd_bus_error>?
) -> Int32 {
    guard let message, let userdata else { return 0 }
    Unmanaged<BusConnection>.fromOpaque(userdata).takeUnretainedValue().receiver.receive(ReceivedSignal(borrowing: message))
    return 0
}
