import CSDBus

#if canImport(Glibc)
import Glibc
#endif

/// An sd-bus message we hold one reference to, with the few ways of writing
/// and reading D-Bus values the Secret Service needs. Writing and reading
/// follow the message's cursor, as sd-bus does; each step checks sd-bus's
/// result and throws on a malformed or unexpected message.
final class BusMessage {

    let raw: OpaquePointer

    /// Takes over one reference.
    init(owning raw: OpaquePointer) {
        self.raw = raw
    }

    deinit {
        sd_bus_message_unref(raw)
    }

    /// Marks the message as carrying a secret: sd-bus erases its memory
    /// when it is released.
    func markSensitive() {
        _ = sd_bus_message_sensitive(raw)
    }

    // MARK: Writing

    /// Appends a string (`s`) or object path (`o`).
    func append(_ string: String, as type: Character = "s") throws(SecretServiceFailure) {
        try check(string.withCString { sd_bus_message_append_basic(raw, Self.code(type), $0) })
    }

    /// Appends a boolean (`b`).
    func append(_ value: Bool) throws(SecretServiceFailure) {
        var flag: Int32 = value ? 1 : 0
        try check(sd_bus_message_append_basic(raw, Self.code("b"), &flag))
    }

    /// Appends an array of object paths (`ao`).
    func append(objectPaths paths: [String]) throws(SecretServiceFailure) {
        try container("a", "o") { () throws(SecretServiceFailure) in
            for path in paths { try append(path, as: "o") }
        }
    }

    /// Appends a byte array (`ay`) of `bytes`.
    func append(bytes: [UInt8]) throws(SecretServiceFailure) {
        let result = bytes.withUnsafeBytes { buffer in
            sd_bus_message_append_array(raw, Self.code("y"), buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, buffer.count)
        }
        try check(result)
    }

    /// Appends a string dictionary (`a{ss}`), entries in the given order.
    func append<Entries: Sequence<(key: String, value: String)>>(dictionary entries: Entries) throws(SecretServiceFailure) {
        try container("a", "{ss}") { () throws(SecretServiceFailure) in
            for (key, value) in entries {
                try container("e", "ss") { () throws(SecretServiceFailure) in
                    try append(key)
                    try append(value)
                }
            }
        }
    }

    /// Writes a container of `type` (`a`, `r`, `e`, `v`) holding `contents`,
    /// whose elements `body` appends.
    func container(
        _ type: Character, _ contents: String, _ body: () throws(SecretServiceFailure) -> Void
    ) throws(SecretServiceFailure) {
        try check(contents.withCString { sd_bus_message_open_container(raw, Self.code(type), $0) })
        try body()
        try check(sd_bus_message_close_container(raw))
    }

    // MARK: Reading

    /// Reads a string (`s`) or object path (`o`).
    func readString(as type: Character = "s") throws(SecretServiceFailure) -> String {
        var pointer: UnsafePointer<CChar>?
        let result = sd_bus_message_read_basic(raw, Self.code(type), &pointer)
        guard result > 0, let pointer else { throw Self.malformed }
        return String(cString: pointer)
    }

    /// Reads a boolean (`b`).
    func readBool() throws(SecretServiceFailure) -> Bool {
        var value: Int32 = 0
        guard sd_bus_message_read_basic(raw, Self.code("b"), &value) > 0 else { throw Self.malformed }
        return value != 0
    }

    /// Reads an unsigned 64-bit integer (`t`).
    func readUInt64() throws(SecretServiceFailure) -> UInt64 {
        var value: UInt64 = 0
        guard sd_bus_message_read_basic(raw, Self.code("t"), &value) > 0 else { throw Self.malformed }
        return value
    }

    /// Reads an array of object paths (`ao`).
    func readObjectPaths() throws(SecretServiceFailure) -> [String] {
        var paths: [String] = []
        try enter("a", "o") { () throws(SecretServiceFailure) in
            while true {
                var pointer: UnsafePointer<CChar>?
                let result = sd_bus_message_read_basic(raw, Self.code("o"), &pointer)
                if result == 0 { break }
                guard result > 0, let pointer else { throw Self.malformed }
                paths.append(String(cString: pointer))
            }
        }
        return paths
    }

    /// Reads a byte array (`ay`) and passes its bytes, which live in the
    /// message, to `body`.
    func readBytes<R>(_ body: (UnsafeRawBufferPointer) throws(SecretServiceFailure) -> R) throws(SecretServiceFailure) -> R {
        var pointer: UnsafeRawPointer?
        var size = 0
        guard sd_bus_message_read_array(raw, Self.code("y"), &pointer, &size) > 0 else { throw Self.malformed }
        return try body(UnsafeRawBufferPointer(start: size > 0 ? pointer : nil, count: size))
    }

    /// Reads a string dictionary (`a{ss}`).
    func readDictionary() throws(SecretServiceFailure) -> [String: String] {
        var dictionary: [String: String] = [:]
        try enter("a", "{ss}") { () throws(SecretServiceFailure) in
            while true {
                let result = sd_bus_message_enter_container(raw, Self.code("e"), "ss")
                if result == 0 { break }
                try check(result)
                let name = try readString()
                dictionary[name] = try readString()
                try check(sd_bus_message_exit_container(raw))
            }
        }
        return dictionary
    }

    /// Reads a property dictionary (`a{sv}`): calls `body` with each name,
    /// positioned at its variant, which `body` must read or skip.
    func forEachProperty(_ body: (String) throws(SecretServiceFailure) -> Void) throws(SecretServiceFailure) {
        try enter("a", "{sv}") { () throws(SecretServiceFailure) in
            while true {
                let result = sd_bus_message_enter_container(raw, Self.code("e"), "sv")
                if result == 0 { break }
                try check(result)
                try body(try readString())
                try check(sd_bus_message_exit_container(raw))
            }
        }
    }

    /// Reads a container of `type` holding `contents` with `body`.
    func enter<R>(
        _ type: Character, _ contents: String, _ body: () throws(SecretServiceFailure) -> R
    ) throws(SecretServiceFailure) -> R {
        let entered = contents.withCString { sd_bus_message_enter_container(raw, Self.code(type), $0) }
        guard entered > 0 else { throw Self.malformed }
        let result = try body()
        try check(sd_bus_message_exit_container(raw))
        return result
    }

    /// Skips values of the given signature (e.g. `"o"`).
    func skip(_ types: String) throws(SecretServiceFailure) {
        try check(types.withCString { sd_bus_message_skip(raw, $0) })
    }

    // MARK: Header

    /// The message's member (method or signal name), if any.
    var member: String? { sd_bus_message_get_member(raw).map { String(cString: $0) } }

    // MARK: Helpers

    private static let malformed = SecretServiceFailure.serverFault("sent a reply of an unexpected type")

    /// The longest object path a signal may name to be acted on: far beyond
    /// any service's item paths, short enough that queued signals stay small.
    static let longestPath = 1024

    /// The object path a signal (borrowed) carries first, as item signals
    /// do; `nil` when it carries none.
    static func firstObjectPath(of signal: OpaquePointer) -> String? {
        var path: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(signal, code("o"), &path) > 0, let path,
              strnlen(path, longestPath + 1) <= longestPath else { return nil }
        return String(cString: path)
    }

    private func check(_ result: Int32) throws(SecretServiceFailure) {
        if result < 0 { throw SecretServiceFailure(errno: -result, operation: "building or reading a D-Bus message") }
    }

    private static func code(_ type: Character) -> CChar {
        CChar(bitPattern: type.asciiValue!)
    }
}
