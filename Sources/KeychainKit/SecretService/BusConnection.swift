import CSDBus

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
/// The connection counts the signals that match ``SecretServiceNames/changeMatchRules``
/// (``changes``), and can make that count *causally fresh*
/// (``synchronize()``): after it, every signal the bus routed to us before
/// the call began has been counted.
final class BusConnection {

    private let bus: OpaquePointer

    /// The process that opened the connection. sd-bus refuses to use a
    /// connection in another process (`-ECHILD`): a fork()ed child drops it
    /// and opens its own.
    let ownerPID: pid_t

    /// The connection's socket, recorded at open: sd-bus refuses to say it
    /// in a fork()ed child, which must close its copy.
    private var socket: Int32 = -1

    /// The bound on each call, in microseconds.
    let timeoutMicroseconds: UInt64

    private let counter = SignalCounter()

    private init(bus: OpaquePointer, timeoutMicroseconds: UInt64) {
        self.bus = bus
        self.ownerPID = getpid()
        self.timeoutMicroseconds = timeoutMicroseconds
    }

    deinit {
        // Closes without flushing: nothing we queue needs to arrive, and a
        // stuck bus must not block us. In a fork()ed child sd-bus leaves the
        // parent's socket alone and only closes the child's descriptor.
        sd_bus_close_unref(bus)
    }

    /// Whether the calling process opened this connection (it is not a
    /// fork()ed child's inheritance).
    var belongsToThisProcess: Bool { getpid() == ownerPID }

    /// In a fork()ed child: closes the child's copy of the socket, so the
    /// parent's connection ends when the parent closes it, and leaves the
    /// rest alone. The connection must not be used or released afterwards.
    func abandon() {
        if socket >= 0 { close(socket) }
        socket = -1
    }

    /// How many change signals have been handled since the connection opened.
    var changes: UInt64 { counter.count }

    /// Connects to the bus at `address` (a D-Bus address), or to the session
    /// bus when `nil` (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`),
    /// authenticates, and subscribes to the change signals, all within
    /// `timeoutMicroseconds`.
    static func open(address: String?, timeoutMicroseconds: UInt64) throws(SecretServiceFailure) -> BusConnection {
        let deadline = Deadline(after: timeoutMicroseconds)
        var opened: OpaquePointer?
        if let address {
            try check(sd_bus_new(&opened), "creating a bus connection")
            guard let bus = opened else { throw SecretServiceFailure(.serviceUnavailable) }
            let started = address.withCString { sd_bus_set_address(bus, $0) } >= 0
                && sd_bus_set_bus_client(bus, 1) >= 0
            let result = started ? sd_bus_start(bus) : -EINVAL
            guard result >= 0 else {
                sd_bus_close_unref(bus)
                throw SecretServiceFailure(errno: -result, operation: "connecting to the bus")
            }
        } else {
            let result = sd_bus_open_user(&opened)
            guard result >= 0, opened != nil else {
                throw SecretServiceFailure(.serviceUnavailable, connectionLost: true)
            }
        }
        let connection = BusConnection(bus: opened!, timeoutMicroseconds: timeoutMicroseconds)
        connection.socket = sd_bus_get_fd(opened!)
        try connection.waitUntilReady(deadline)
        for rule in SecretServiceNames.changeMatchRules {
            // Installed without waiting for the bus's answer: the bus handles
            // our messages in order, so every later call is ordered after it.
            let result = rule.withCString {
                sd_bus_add_match_async(
                    connection.bus, nil, $0, countChange, nil,
                    Unmanaged.passUnretained(connection.counter).toOpaque())
            }
            try check(result, "subscribing to the Secret Service's signals")
        }
        return connection
    }

    // MARK: Calls

    /// A new method call to `member` of `interface` at `path` of `destination`.
    func methodCall(
        _ destination: String, _ path: String, _ interface: String, _ member: String
    ) throws(SecretServiceFailure) -> BusMessage {
        var message: OpaquePointer?
        let result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard result >= 0, let message else {
            throw SecretServiceFailure(errno: -result, operation: "creating a D-Bus call")
        }
        return BusMessage(owning: message)
    }

    /// Sends `message` and waits, at most the timeout, for its reply.
    func call(_ message: BusMessage) throws(SecretServiceFailure) -> BusMessage {
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let result = sd_bus_call(bus, message.raw, timeoutMicroseconds, &error, &reply)
        guard result >= 0, let reply else { throw SecretServiceFailure(result: result, busError: error) }
        return BusMessage(owning: reply)
    }

    /// Makes ``changes`` causally fresh: a round trip to the bus daemon,
    /// which routes messages in order, so every signal routed to us before
    /// this call began arrives before its reply; then handles them all.
    func synchronize() throws(SecretServiceFailure) {
        _ = try call(barrier())
        try handlePendingSignals()
    }

    /// Calls `message` and ``synchronize()``s in one round trip's time: the
    /// barrier to the bus daemon is sent first and both replies awaited.
    func callSynchronized(_ message: BusMessage) throws(SecretServiceFailure) -> BusMessage {
        let deadline = Deadline(after: timeoutMicroseconds)
        let outcome = BarrierOutcome()
        var slot: OpaquePointer?
        let barrier = try barrier()
        let sent = sd_bus_call_async(
            bus, &slot, barrier.raw, barrierAnswered, Unmanaged.passUnretained(outcome).toOpaque(),
            timeoutMicroseconds)
        try Self.check(sent, "sending a call to the bus")
        defer { sd_bus_slot_unref(slot) }
        let reply = try call(message)
        while !outcome.answered {
            try processOne(until: deadline)
        }
        if outcome.failed { throw SecretServiceFailure(.serviceUnavailable, connectionLost: true) }
        try handlePendingSignals()
        withExtendedLifetime(barrier) {}
        return reply
    }

    /// Handles every message already received or waiting on the socket,
    /// without blocking (signals update ``changes``).
    func handlePendingSignals() throws(SecretServiceFailure) {
        while true {
            let result = sd_bus_process(bus, nil)
            if result == 0 { return }
            try Self.check(result, "reading from the bus")
        }
    }

    // MARK: Internals

    /// A cheap call the bus daemon answers itself.
    private func barrier() throws(SecretServiceFailure) -> BusMessage {
        let names = SecretServiceNames.Bus.self
        return try methodCall(names.name, names.path, names.interface, names.getID)
    }

    /// Handles one incoming message, or waits for one until `deadline`.
    private func processOne(until deadline: Deadline) throws(SecretServiceFailure) {
        let processed = sd_bus_process(bus, nil)
        try Self.check(processed, "reading from the bus")
        if processed > 0 { return }
        guard let left = deadline.remaining else {
            throw SecretServiceFailure(.serviceUnavailable, connectionLost: true)
        }
        let waited = sd_bus_wait(bus, left)
        if waited < 0 && waited != -EINTR { try Self.check(waited, "waiting on the bus") }
    }

    private func waitUntilReady(_ deadline: Deadline) throws(SecretServiceFailure) {
        while true {
            let ready = sd_bus_is_ready(bus)
            try Self.check(ready, "connecting to the bus")
            if ready > 0 { return }
            try processOne(until: deadline)
        }
    }

    private static func check(_ result: Int32, _ operation: String) throws(SecretServiceFailure) {
        if result < 0 { throw SecretServiceFailure(errno: -result, operation: operation) }
    }
    private func check(_ result: Int32, _ operation: String) throws(SecretServiceFailure) {
        try Self.check(result, operation)
    }
}

/// The number of change signals a connection handled.
private final class SignalCounter {
    var count: UInt64 = 0
}

/// What became of a barrier call.
private final class BarrierOutcome {
    var answered = false
    var failed = false
}

/// Counts a change signal (an sd-bus match callback).
private func countChange(
    _ message: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<sd_bus_error>?
) -> Int32 {
    guard let userdata else { return 0 }
    Unmanaged<SignalCounter>.fromOpaque(userdata).takeUnretainedValue().count &+= 1
    return 0
}

/// Records a barrier's reply (an sd-bus reply callback).
private func barrierAnswered(
    _ message: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<sd_bus_error>?
) -> Int32 {
    guard let userdata else { return 0 }
    let outcome = Unmanaged<BarrierOutcome>.fromOpaque(userdata).takeUnretainedValue()
    outcome.answered = true
    outcome.failed = message.map { sd_bus_message_is_method_error($0, nil) > 0 } ?? true
    return 0
}

/// A point on the monotonic clock, a bound for waits.
struct Deadline {

    private let microseconds: UInt64

    /// The deadline `duration` microseconds from now.
    init(after duration: UInt64) {
        microseconds = Self.now() &+ duration
    }

    /// Microseconds until the deadline, or `nil` once it has passed.
    var remaining: UInt64? {
        let now = Self.now()
        return now < microseconds ? microseconds - now : nil
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000 + UInt64(time.tv_nsec) / 1000
    }
}
