// SPDX-License-Identifier: MIT
import CSDBus

#if canImport(Glibc)
import Glibc
#endif

/// An sd-bus message we hold one reference to, with the few ways of writing
/// and reading D-Bus values the Secret Service needs. Writing and reading
/// follow the message's cursor, as sd-bus does; each step checks sd-bus's
/// result and throws on a malformed or unexpected message.
package final class BusMessage {

    package let raw: OpaquePointer

    /// Takes over one reference.
    package init(owning raw: OpaquePointer) {
        self.raw = raw
    }

    deinit {
        sd_bus_message_unref(raw)
    }

    /// Marks the message as carrying a secret: sd-bus erases its memory
    /// when it is released.
    package func markSensitive() {
        _ = sd_bus_message_sensitive(raw)
    }

    // MARK: Writing

    /// Appends a string (`s`) or object path (`o`).
    package func append(_ string: String, as type: Character = "s") throws(BusFailure) {
        try check(string.withCString { sd_bus_message_append_basic(raw, Self.code(type), $0) })
    }

    /// Appends a boolean (`b`).
    package func append(_ value: Bool) throws(BusFailure) {
        var flag: Int32 = value ? 1 : 0
        try check(sd_bus_message_append_basic(raw, Self.code("b"), &flag))
    }

    /// Appends a file descriptor (`h`): the message carries a duplicate of
    /// it, so the caller may close its own at once.
    package func append(fileDescriptor fd: Int32) throws(BusFailure) {
        var descriptor = fd
        try check(sd_bus_message_append_basic(raw, Self.code("h"), &descriptor))
    }

    /// Appends a dictionary of string variants (`a{sv}`, each value `s`).
    package func append(stringVariants entries: [(key: String, value: String)]) throws(BusFailure) {
        try openContainer("a", "{sv}")
        for (key, value) in entries {
            try openContainer("e", "sv")
            try append(key)
            try openContainer("v", "s")
            try append(value)
            try closeContainer()
            try closeContainer()
        }
        try closeContainer()
    }

    /// Appends an array of object paths (`ao`).
    package func append(objectPaths paths: [String]) throws(BusFailure) {
        try openContainer("a", "o")
        for path in paths { try append(path, as: "o") }
        try closeContainer()
    }

    /// Appends a byte array (`ay`) of `bytes`.
    package func append(bytes: [UInt8]) throws(BusFailure) {
        let result = bytes.withUnsafeBytes { buffer in
            sd_bus_message_append_array(raw, Self.code("y"), buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, buffer.count)
        }
        try check(result)
    }

    /// Appends a string dictionary (`a{ss}`), entries in the given order.
    /// (An array, not any sequence: a generic called from another module
    /// runs unspecialized, and its first use makes the runtime scan every
    /// protocol conformance in the binary for the sequence's iterator.)
    package func append(dictionary entries: [(key: String, value: String)]) throws(BusFailure) {
        try openContainer("a", "{ss}")
        for (key, value) in entries {
            try openContainer("e", "ss")
            try append(key)
            try append(value)
            try closeContainer()
        }
        try closeContainer()
    }

    /// Opens a container of `type` (`a`, `r`, `e`, `v`) holding `contents`;
    /// the values appended next are its elements, until ``closeContainer()``.
    package func openContainer(_ type: Character, _ contents: String) throws(BusFailure) {
        try check(contents.withCString { sd_bus_message_open_container(raw, Self.code(type), $0) })
    }

    /// Closes the container opened last.
    package func closeContainer() throws(BusFailure) {
        try check(sd_bus_message_close_container(raw))
    }

    // MARK: Reading

    /// Reads a string (`s`) or object path (`o`).
    package func readString(as type: Character = "s") throws(BusFailure) -> String {
        var pointer: UnsafePointer<CChar>?
        let result = sd_bus_message_read_basic(raw, Self.code(type), &pointer)
        guard result > 0, let pointer else { throw Self.malformed }
        return String(cString: pointer)
    }

    /// Reads a boolean (`b`).
    package func readBool() throws(BusFailure) -> Bool {
        var value: Int32 = 0
        guard sd_bus_message_read_basic(raw, Self.code("b"), &value) > 0 else { throw Self.malformed }
        return value != 0
    }

    /// Reads an unsigned 32-bit integer (`u`).
    package func readUInt32() throws(BusFailure) -> UInt32 {
        var value: UInt32 = 0
        guard sd_bus_message_read_basic(raw, Self.code("u"), &value) > 0 else { throw Self.malformed }
        return value
    }

    /// Reads an unsigned 64-bit integer (`t`).
    package func readUInt64() throws(BusFailure) -> UInt64 {
        var value: UInt64 = 0
        guard sd_bus_message_read_basic(raw, Self.code("t"), &value) > 0 else { throw Self.malformed }
        return value
    }

    /// Reads an array of object paths (`ao`).
    package func readObjectPaths() throws(BusFailure) -> [String] {
        var paths: [String] = []
        try enterContainer("a", "o")
        while true {
            var pointer: UnsafePointer<CChar>?
            let result = sd_bus_message_read_basic(raw, Self.code("o"), &pointer)
            if result == 0 { break }
            guard result > 0, let pointer else { throw Self.malformed }
            paths.append(String(cString: pointer))
        }
        try exitContainer()
        return paths
    }

    /// Reads a byte array (`ay`): its bytes, which live in the message and
    /// stay valid while it does.
    package func readByteArray() throws(BusFailure) -> UnsafeRawBufferPointer {
        var pointer: UnsafeRawPointer?
        var size = 0
        guard sd_bus_message_read_array(raw, Self.code("y"), &pointer, &size) > 0 else { throw Self.malformed }
        return UnsafeRawBufferPointer(start: size > 0 ? pointer : nil, count: size)
    }

    /// Reads a string dictionary (`a{ss}`).
    package func readDictionary() throws(BusFailure) -> [String: String] {
        var dictionary: [String: String] = [:]
        try enterContainer("a", "{ss}")
        while try enterElement("e", "ss") {
            let name = try readString()
            dictionary[name] = try readString()
            try exitContainer()
        }
        try exitContainer()
        return dictionary
    }

    /// Enters a container of `type` holding `contents`, which must come
    /// next; its values are read until ``exitContainer()``.
    package func enterContainer(_ type: Character, _ contents: String) throws(BusFailure) {
        guard try enterElement(type, contents) else { throw Self.malformed }
    }

    /// Enters the next element of an array, a container of `type` holding
    /// `contents`; `false` at the end of the array.
    package func enterElement(_ type: Character, _ contents: String) throws(BusFailure) -> Bool {
        let entered = contents.withCString { sd_bus_message_enter_container(raw, Self.code(type), $0) }
        if entered < 0 { throw Self.malformed }
        return entered > 0
    }

    /// Leaves the container entered last.
    package func exitContainer() throws(BusFailure) {
        try check(sd_bus_message_exit_container(raw))
    }

    /// The type of the next value and, for a container, its contents'
    /// signature; `nil` at the end of the message or of a container.
    package func peekType() throws(BusFailure) -> (type: Character, contents: String)? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let result = sd_bus_message_peek_type(raw, &type, &contents)
        try check(result)
        guard result > 0 else { return nil }
        return (Character(Unicode.Scalar(UInt8(bitPattern: type))), contents.map { String(cString: $0) } ?? "")
    }

    /// Skips values of the given signature (e.g. `"o"`).
    package func skip(_ types: String) throws(BusFailure) {
        try check(types.withCString { sd_bus_message_skip(raw, $0) })
    }

    /// About how many bytes the body holds: each string's and array's
    /// contents and 8 bytes for every other value, found by reading it
    /// through; the cursor is back at the start afterwards. What a server
    /// counts a call as while it waits (``FairQueue``).
    package func bodySize() throws(BusFailure) -> Int {
        var size = 0
        try walk(&size)
        try check(sd_bus_message_rewind(raw, 1))
        return size
    }

    private func walk(_ size: inout Int) throws(BusFailure) {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        while true {
            let more = sd_bus_message_peek_type(raw, &type, &contents)
            try check(more)
            guard more > 0 else { return }
            switch UInt8(bitPattern: type) {
            case UInt8(ascii: "a") where contents.map({ strlen($0) == 1 && Self.fixedSize.contains(UInt8(bitPattern: $0[0])) }) ?? false:
                var pointer: UnsafeRawPointer?
                var bytes = 0
                try check(sd_bus_message_read_array(raw, contents![0], &pointer, &bytes))
                size += bytes
            case UInt8(ascii: "a"), UInt8(ascii: "v"), UInt8(ascii: "r"), UInt8(ascii: "e"):
                let entered = sd_bus_message_enter_container(raw, type, contents)
                try check(entered)
                guard entered > 0 else { return }
                try walk(&size)
                try exitContainer()
            case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
                var pointer: UnsafePointer<CChar>?
                try check(sd_bus_message_read_basic(raw, type, &pointer))
                size += pointer.map { strlen($0) } ?? 0
            default:
                var value: UInt64 = 0
                try check(sd_bus_message_read_basic(raw, type, &value))
                size += 8
            }
        }
    }

    /// The types of fixed size, whose arrays sd-bus reads in one piece.
    private static let fixedSize: Set<UInt8> = Set("ybnqiuxtdh".utf8)

    // MARK: Header

    /// The message's member (method or signal name), if any.
    package var member: String? { sd_bus_message_get_member(raw).map { String(cString: $0) } }

    /// The unique bus name of the connection that sent the message, as the
    /// bus daemon stamped it.
    package var sender: String? { sd_bus_message_get_sender(raw).map { String(cString: $0) } }

    /// The object path the message is sent to (a call) or from (a signal).
    package var path: String? { sd_bus_message_get_path(raw).map { String(cString: $0) } }

    /// The interface of its member, if the message names one.
    package var interface: String? { sd_bus_message_get_interface(raw).map { String(cString: $0) } }

    /// The signature of its whole body ("" for none).
    package var signature: String { sd_bus_message_get_signature(raw, 1).map { String(cString: $0) } ?? "" }

    /// The destination the message is addressed to, if any.
    package var destination: String? { sd_bus_message_get_destination(raw).map { String(cString: $0) } }

    /// Addresses the message (a signal) to one connection only.
    package func setDestination(_ name: String) throws(BusFailure) {
        try check(name.withCString { sd_bus_message_set_destination(raw, $0) })
    }

    // MARK: Helpers

    private static let malformed = BusFailure.malformed("reading a D-Bus message")

    private func check(_ result: Int32) throws(BusFailure) {
        try BusFailure.check(result, "building or reading a D-Bus message")
    }

    private static func code(_ type: Character) -> CChar {
        CChar(bitPattern: type.asciiValue!)
    }
}
