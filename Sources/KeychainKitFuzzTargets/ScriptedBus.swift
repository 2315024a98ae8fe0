// SPDX-License-Identifier: MIT
import CSDBus
import KeychainKitSystem
#if canImport(Glibc)
import Glibc
#endif

/// A D-Bus peer on a Unix socket that plays both the bus daemon (it
/// answers `Hello`, `AddMatch`, `GetNameOwner` as dbus-daemon does) and a
/// Secret Service whose every answer a ``ReplyScript`` writes: the client
/// under test connects to it as to a session bus. Each connection is
/// served by a thread of its own with the script current when it came.
final class ScriptedBus: @unchecked Sendable {

    /// The service's unique name, the sender of every answer.
    static let serviceName = ":1.2"

    /// The address to give the client.
    let address: String

    private let listener: Int32
    private let state = Locked<Exchange?>(nil)
    /// How many connections are served and their threads have not yet
    /// released what they hold (a client may connect again after a
    /// failure); counted up under `state`'s lock, which hands the script out.
    private let serving = ServingCount()

    /// One connection's script and what it served.
    final class Exchange: @unchecked Sendable {
        let script: ReplyScript
        /// What the script served.
        let served = Served()

        init(script: ReplyScript) { self.script = script }
    }

    /// Listens on a socket in a private directory; `nil` when that fails.
    init?() {
        var template = Array("/tmp/kk-fuzz-bus.XXXXXX".utf8CString)
        guard let directory = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { return nil }
        let path = String(cString: directory) + "/bus"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard listener >= 0, bound == 0, listen(listener, 16) == 0 else { return nil }
        self.listener = listener
        address = "unix:path=" + path
    }

    /// Accepts connections from now on (on a thread of its own).
    func start() -> ScriptedBus {
        Self.startThread { [self] in acceptForever() }
        return self
    }

    /// Serves the next connection with `script`; returns what it serves.
    func expect(_ script: ReplyScript) -> Exchange {
        let exchange = Exchange(script: script)
        state.withLock { $0 = exchange }
        return exchange
    }

    /// Ends the current exchange: a connection that comes later is closed
    /// unserved; waits (at most `seconds`) until those that took it, if
    /// any, have ended and freed what they held, so that an input's
    /// allocations end with it (libFuzzer counts them: a thread still
    /// serving made LeakSanitizer report its bus). `false` when they have
    /// not by then.
    func finish(seconds: Int) -> Bool {
        state.withLock { $0 = nil }
        return serving.awaitNone(seconds: seconds)
    }

    private func acceptForever() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            let taken = state.withLock { current -> Exchange? in
                if current != nil { serving.enter() }
                return current
            }
            guard let exchange = taken else { close(connection); continue }
            startServing(Connection(socket: connection, exchange: exchange, serving: serving))
        }
    }

    /// One accepted connection, handed to the thread that serves it.
    private final class Connection {
        let socket: Int32
        let exchange: Exchange
        let serving: ServingCount

        init(socket: Int32, exchange: Exchange, serving: ServingCount) {
            self.socket = socket
            self.exchange = exchange
            self.serving = serving
        }
    }

    /// Serves `connection` on a thread of its own, which leaves `serving`
    /// only once it has released every object of the input it held: the
    /// fuzzer's leak check, which may run as soon as `finish` returns,
    /// must not find one half torn down.
    private func startServing(_ connection: Connection) {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(connection).toOpaque()
        guard pthread_create(&thread, nil, { raw in
            ScriptedBus.serveAndRelease(raw!).leave()
            return nil
        }, context) == 0 else {
            Unmanaged<Connection>.fromOpaque(context).release()
            close(connection.socket)
            serving.leave()
            return
        }
        pthread_detach(thread)
    }

    /// Serves the connection at `raw` (retained) and releases it; returns
    /// its count to leave (the bus's, which outlives every input).
    @inline(never)
    private static func serveAndRelease(_ raw: UnsafeMutableRawPointer) -> ServingCount {
        let connection = Unmanaged<Connection>.fromOpaque(raw).takeRetainedValue()
        serve(connection.socket, connection.exchange)
        return connection.serving
    }

    /// Serves one connection until the client leaves.
    private static func serve(_ socket: Int32, _ exchange: Exchange) {
        var opened: OpaquePointer?
        var id = sd_id128_t()
        guard sd_bus_new(&opened) >= 0, let bus = opened else { close(socket); return }
        defer { sd_bus_close_unref(bus) }
        guard sd_id128_randomize(&id) >= 0, sd_bus_set_fd(bus, socket, socket) >= 0,
              sd_bus_set_server(bus, 1, id) >= 0 else { return }
        // Every message goes to the filter first; it answers each call
        // itself (sd-bus would answer a call no object took with an error).
        let context = Unmanaged.passRetained(exchange).toOpaque()
        defer { Unmanaged<Exchange>.fromOpaque(context).release() }
        guard sd_bus_add_filter(bus, nil, { message, userdata, _ in
            guard let message, let userdata else { return 0 }
            ScriptedBus.answer(message, on: sd_bus_message_get_bus(message), Unmanaged<Exchange>.fromOpaque(userdata).takeUnretainedValue())
            return 1
        }, context) >= 0, sd_bus_start(bus) >= 0 else { return }
        while true {
            let processed = sd_bus_process(bus, nil)
            if processed < 0 { return }  // the client left
            if processed == 0 && sd_bus_wait(bus, 5_000_000) < 0 { return }
        }
    }

    private static func answer(_ call: OpaquePointer, on bus: OpaquePointer, _ exchange: Exchange) {
        var type: UInt8 = 0
        guard sd_bus_message_get_type(call, &type) >= 0, type == 1 /* SD_BUS_MESSAGE_METHOD_CALL */ else { return }
        let member = sd_bus_message_get_member(call).map { String(cString: $0) } ?? ""
        let destination = sd_bus_message_get_destination(call).map { String(cString: $0) } ?? ""
        FuzzTrace.say("call \(destination) \(sd_bus_message_get_path(call).map { String(cString: $0) } ?? "") \(member)")
        if destination == "org.freedesktop.DBus" {
            switch member {
            case "Hello": reply(to: call, on: bus, sender: "org.freedesktop.DBus") { appendString(":1.1", $0) }
            case "GetNameOwner" where firstString(of: call) == "org.gnome.keyring": answerGnomeKeyringOwner(call, on: bus, exchange)
            case "GetNameOwner": reply(to: call, on: bus, sender: "org.freedesktop.DBus") { appendString(serviceName, $0) }
            default: reply(to: call, on: bus, sender: "org.freedesktop.DBus") { _ in true }
            }
            return
        }
        let script = exchange.script
        let kind = script.next()
        if kind >= 232 {
            replyError(to: call, on: bus, sender: serviceName, name: script.pick(ReplyScript.errorNames))
            return
        }
        if member == "OpenSession" && kind < 208 {
            // As a service that offers only plain does (the client then asks
            // for plain), unless the script answers the key exchange (with a
            // key of its own bytes: secrets then fail to decrypt).
            var algorithm: UnsafePointer<CChar>?
            let asked = sd_bus_message_read_basic(call, CChar(UInt8(ascii: "s")), &algorithm) >= 0
                ? algorithm.map { String(cString: $0) } ?? "" : ""
            if asked == "plain" {
                reply(to: call, on: bus, sender: serviceName) { message in
                    sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), "s") >= 0 && appendString("", message)
                        && sd_bus_message_close_container(message) >= 0
                        && appendPath("/org/freedesktop/secrets/session/s1", message)
                }
                return
            }
            if script.next() & 3 == 0 {
                replyError(to: call, on: bus, sender: serviceName, name: "org.freedesktop.DBus.Error.NotSupported")
                return
            }
            exchange.served.answeredKeyExchange = true
        }
        let path = sd_bus_message_get_path(call).map { String(cString: $0) } ?? "/"
        if member == "Get" && kind < 208 {
            var interface: UnsafePointer<CChar>?, property: UnsafePointer<CChar>?
            let name = sd_bus_message_read_basic(call, CChar(UInt8(ascii: "s")), &interface) >= 0
                && sd_bus_message_read_basic(call, CChar(UInt8(ascii: "s")), &property) >= 0
                ? property.map { String(cString: $0) } ?? "" : ""
            reply(to: call, on: bus, sender: serviceName) { message in
                script.appendVariant(of: name, to: message, about: path,
                                     served: exchange.served)
            }
            return
        }
        let signature = kind >= 208 ? script.pick(ReplyScript.otherSignatures) : expectedSignature(of: call, member: member)
        reply(to: call, on: bus, sender: serviceName) { message in
            if member == "Introspect" && signature == "s" { return appendString(script.pick(ReplyScript.introspections), message) }
            return script.append(signature, to: message, about: path,
                                 served: exchange.served)
        }
        if member == "Prompt" && script.next() & 1 == 0 {
            // The prompt completes (dismissed or not, with what result the
            // script says), as a service signals it.
            var signal: OpaquePointer?
            guard sd_bus_message_new_signal(bus, &signal, path, "org.freedesktop.Secret.Prompt", "Completed") >= 0,
                  let signal else { return }
            defer { sd_bus_message_unref(signal) }
            _ = sd_bus_message_set_sender(signal, serviceName)
            if script.append("bv", to: signal, about: nil, served: exchange.served) {
                _ = sd_bus_send(bus, signal, nil)
            }
        }
    }

    /// The reply's signature the Secret Service API gives `member`.
    private static func expectedSignature(of call: OpaquePointer, member: String) -> String {
        switch member {
        case "Introspect": return "s"
        case "OpenSession": return "vo"  // the key exchange's answer: v(ay), o
        case "SearchItems":
            let interface = sd_bus_message_get_interface(call).map { String(cString: $0) } ?? ""
            return interface == "org.freedesktop.Secret.Collection" ? "ao" : "aoao"
        case "GetSecrets": return "a{o(oayays)}"
        case "GetSecret": return "(oayays)"
        case "CreateItem", "CreateCollection": return "oo"
        case "Delete", "ReadAlias": return "o"
        case "Unlock", "Lock": return "aoo"
        case "Get": return "v"
        case "GetAll": return "a{sv}"
        default: return ""  // Set, Prompt, Close, Ping, SetSecret, ...
        }
    }

    private static func reply(to call: OpaquePointer, on bus: OpaquePointer, sender: String, _ fill: (OpaquePointer) -> Bool) {
        var message: OpaquePointer?
        guard sd_bus_message_new_method_return(call, &message) >= 0, let message else { return }
        defer { sd_bus_message_unref(message) }
        _ = sd_bus_message_set_sender(message, sender)
        if fill(message) {
            _ = sd_bus_send(bus, message, nil)
        } else {
            replyError(to: call, on: bus, sender: sender, name: "org.freedesktop.DBus.Error.Failed")
        }
    }

    private static func replyError(to call: OpaquePointer, on bus: OpaquePointer, sender: String, name: String) {
        name.withCString { name in
            "scripted".withCString { text in
                var error = sd_bus_error(name: name, message: text, _need_free: 0)
                var failure: OpaquePointer?
                guard sd_bus_message_new_method_error(call, &failure, &error) >= 0, let failure else { return }
                _ = sd_bus_message_set_sender(failure, sender)
                _ = sd_bus_send(bus, failure, nil)
                sd_bus_message_unref(failure)
            }
        }
    }

    /// Who owns gnome-keyring's bus name, the client's question of which
    /// server the service is: the script answers it with the bytes the
    /// `Introspect` it replaced read, in the same place of the exchange (a
    /// kind, then an error, a reply of another shape, or one of
    /// `introspections`: the service's name when that one is gnome-keyring's,
    /// else no owner), so that the corpus keeps its meaning.
    private static func answerGnomeKeyringOwner(_ call: OpaquePointer, on bus: OpaquePointer, _ exchange: Exchange) {
        let script = exchange.script, daemon = "org.freedesktop.DBus"
        let kind = script.next()
        if kind >= 232 {
            replyError(to: call, on: bus, sender: daemon, name: script.pick(ReplyScript.errorNames))
        } else if kind >= 208 {
            let signature = script.pick(ReplyScript.otherSignatures)
            reply(to: call, on: bus, sender: daemon) { script.append(signature, to: $0, about: "/", served: exchange.served) }
        } else if script.pick(ReplyScript.introspections).contains("org.gnome.keyring.") {
            reply(to: call, on: bus, sender: daemon) { appendString(serviceName, $0) }
        } else {
            replyError(to: call, on: bus, sender: daemon, name: "org.freedesktop.DBus.Error.NameHasNoOwner")
        }
    }

    /// The call's first argument, when it is a string.
    private static func firstString(of call: OpaquePointer) -> String? {
        var value: UnsafePointer<CChar>?
        defer { sd_bus_message_rewind(call, 1) }
        guard sd_bus_message_read_basic(call, CChar(UInt8(ascii: "s")), &value) >= 0, let value else { return nil }
        return String(cString: value)
    }

    private static func appendString(_ string: String, _ message: OpaquePointer) -> Bool {
        string.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) } >= 0
    }

    private static func appendPath(_ path: String, _ message: OpaquePointer) -> Bool {
        path.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "o")), $0) } >= 0
    }

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private static func startThread(_ body: @escaping () -> Void) {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        guard pthread_create(&thread, nil, { raw in
            Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, context) == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return
        }
        pthread_detach(thread)
    }
}
