// SPDX-License-Identifier: MIT
import CSDBus

/// The fuzzer's input, read as the answers of a Secret Service: for each
/// call the client makes, a byte chooses the answer's kind (the reply the
/// protocol expects, with values taken from the input; an error; or a
/// reply of another shape), and the bytes after it the values. Past the
/// input's end every byte reads 0: the expected reply with the first
/// choices, so that each input ends without waiting out a timeout.
final class ReplyScript: @unchecked Sendable {

    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next byte, 0 past the end.
    func next() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// One of `choices`, chosen by the next byte.
    func pick<T>(_ choices: [T]) -> T { choices[Int(next()) % choices.count] }

    /// A count in `0...most`.
    func count(atMost most: Int) -> Int { Int(next()) % (most + 1) }

    /// Up to `most` bytes of the input, as they are.
    func bytes(atMost most: Int) -> [UInt8] { (0..<count(atMost: most)).map { _ in next() } }

    // MARK: The vocabulary a Secret Service answers with

    static let itemPaths = [
        "/org/freedesktop/secrets/collection/login/1", "/org/freedesktop/secrets/collection/login/2",
        "/org/freedesktop/secrets/collection/session/3", "/org/freedesktop/secrets/collection/login",
        "/", "/org/freedesktop/secrets/aliases/default/1",
    ]
    static let collectionPaths = [
        "/org/freedesktop/secrets/collection/login", "/org/freedesktop/secrets/collection/session",
        "/org/freedesktop/secrets/aliases/default", "/", "/org/freedesktop/secrets/collection/login/1",
    ]
    static let otherPaths = ["/", "/org/freedesktop/secrets/prompt/p1", "/org/freedesktop/secrets/session/s1"]
    static let attributeNames = ["service", "username", "xdg:schema", "application", "gkr:compat:hashed:service", ""]
    static let attributeValues = [
        // (No NUL: a D-Bus string cannot hold one, and what is recorded
        // must be what was sent.)
        "svc", "alice", "bob", "", "Alice", "alice ", "\u{e9}", "org.freedesktop.Secret.Generic",
        "io.github.keychainkit.Password", "8e4a1dcc7f5f3d3ee8a4d9f1b2d0c1a5",
    ]
    static let errorNames = [
        "org.freedesktop.Secret.Error.IsLocked", "org.freedesktop.Secret.Error.NoSession",
        "org.freedesktop.Secret.Error.NoSuchObject", "org.freedesktop.DBus.Error.UnknownMethod",
        "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.ServiceUnknown",
        "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.AccessDenied",
        "org.freedesktop.DBus.Error.NotSupported", "org.gnome.keyring.Error.Denied", "x.y",
    ]
    /// Signatures of other shapes, for answers the client does not expect.
    static let otherSignatures = ["", "s", "o", "b", "u", "t", "ao", "aoao", "a{ss}", "a{sv}", "v", "(oayays)", "a{o(oayays)}", "oo", "aoo", "ay", "vo", "as", "a{oa{ss}}", "(ss)"]
    static let propertyNames = ["Attributes", "Label", "Locked", "Created", "Modified", "Items", "Collections", "Type", ""]
    static let introspections = [
        "<node><interface name=\"org.freedesktop.Secret.Service\"/></node>",
        "<node><interface name=\"org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface\"/></node>",
        "", "<node>",
    ]

    // MARK: Values

    /// Appends to `message` values of the complete types `signature`, from
    /// the input, recording the attributes and secrets it serves for the
    /// item at `path` (the call's object); `false` when sd-bus refused one
    /// (the caller answers with an error instead).
    func append(
        _ signature: String, to message: OpaquePointer, about path: String?,
        served: Served
    ) -> Bool {
        var types = Substring(signature)
        while !types.isEmpty {
            let one = Self.firstCompleteType(types)
            types = types.dropFirst(one.count)
            guard appendOne(one, to: message, context: path, served: served)
            else { return false }
        }
        return true
    }

    /// What an appended value is part of: the item a dictionary of
    /// attributes or a secret belongs to, when known.
    private func appendOne(
        _ type: Substring, to message: OpaquePointer, context item: String?,
        served: Served
    ) -> Bool {
        switch type.first {
        case "s", "g":
            return appendString(pick(Self.attributeValues), type.first!, message)
        case "o":
            return appendString(pick(Self.itemPaths + Self.collectionPaths + Self.otherPaths), "o", message)
        case "b":
            var value: Int32 = Int32(next() & 1)
            return sd_bus_message_append_basic(message, CChar(UInt8(ascii: "b")), &value) >= 0
        case "y":
            var value = next()
            return sd_bus_message_append_basic(message, CChar(UInt8(ascii: "y")), &value) >= 0
        case "u", "i":
            var value = UInt32(next()) << 24 | UInt32(next())
            return sd_bus_message_append_basic(message, CChar(UInt8(type.first!.asciiValue!)), &value) >= 0
        case "t", "x":
            var value = UInt64(next()) << 56 | UInt64(next())
            return sd_bus_message_append_basic(message, CChar(UInt8(type.first!.asciiValue!)), &value) >= 0
        case "v":
            let inner = pick(["ay", "a{ss}", "s", "b", "t", "ao", "o", "u"])
            guard sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), inner) >= 0,
                  appendOne(Substring(inner), to: message, context: item, served: served)
            else { return false }
            return sd_bus_message_close_container(message) >= 0
        case "a":
            let element = Self.firstCompleteType(type.dropFirst())
            if element == "y" {  // a secret's bytes, a parameter, a public key
                let value = bytes(atMost: pick([48, 128, 16]))
                if let item { served.secrets.append((item, value, served.answeredKeyExchange)) }
                return value.withUnsafeBytes { sd_bus_message_append_array(message, CChar(UInt8(ascii: "y")), $0.baseAddress, $0.count) } >= 0
            }
            if element == "{ss}" {  // attributes
                var attributes: [String: String] = [:]
                guard sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "{ss}") >= 0 else { return false }
                for _ in 0..<count(atMost: 4) {
                    let name = pick(Self.attributeNames), value = pick(Self.attributeValues)
                    attributes[name] = value
                    guard sd_bus_message_open_container(message, CChar(UInt8(ascii: "e")), "ss") >= 0,
                          appendString(name, "s", message), appendString(value, "s", message),
                          sd_bus_message_close_container(message) >= 0 else { return false }
                }
                if let item { served.attributes[item, default: []].append(attributes) }
                return sd_bus_message_close_container(message) >= 0
            }
            guard sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), String(element)) >= 0 else { return false }
            for _ in 0..<count(atMost: 3) {
                guard appendOne(element, to: message, context: item, served: served) else { return false }
            }
            return sd_bus_message_close_container(message) >= 0
        case "{":
            // A dictionary entry: a property (name, variant) or an item's
            // secret (path, secret struct).
            let contents = type.dropFirst().dropLast()
            let key = Self.firstCompleteType(contents), value = contents.dropFirst(key.count)
            guard sd_bus_message_open_container(message, CChar(UInt8(ascii: "e")), String(contents)) >= 0 else { return false }
            if key == "o" {
                let path = pick(Self.itemPaths)
                guard appendString(path, "o", message),
                      appendOne(value, to: message, context: path, served: served)
                else { return false }
            } else if key == "s" && value == "v" {
                let name = pick(Self.propertyNames)
                guard appendString(name, "s", message),
                      appendVariant(of: name, to: message, about: item, served: served)
                else { return false }
            } else {
                guard appendOne(key, to: message, context: item, served: served),
                      appendOne(value, to: message, context: item, served: served)
                else { return false }
            }
            return sd_bus_message_close_container(message) >= 0
        case "(":
            let contents = type.dropFirst().dropLast()
            guard sd_bus_message_open_container(message, CChar(UInt8(ascii: "r")), String(contents)) >= 0 else { return false }
            // A secret struct (oayays): its session, then its parameters and
            // value, both the item's.
            var rest = contents
            while !rest.isEmpty {
                let one = Self.firstCompleteType(rest)
                rest = rest.dropFirst(one.count)
                guard appendOne(one, to: message, context: one == "ay" && rest == "s" ? item : nil,
                                served: served) else { return false }
            }
            return sd_bus_message_close_container(message) >= 0
        default:
            return false
        }
    }

    /// Appends the property `name`'s value as a variant: of the type the
    /// API gives it, or (a byte chooses, and for names it does not know)
    /// another.
    func appendVariant(
        of name: String, to message: OpaquePointer, about item: String?,
        served: Served
    ) -> Bool {
        let types = ["Attributes": "a{ss}", "Label": "s", "Locked": "b", "Created": "t", "Modified": "t", "Items": "ao", "Collections": "ao"]
        let inner = next() < 224 ? types[name] ?? pick(["s", "t", "b", "a{ss}"]) : pick(["s", "t", "b", "a{ss}", "ao", "u", "ay"])
        return sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), inner) >= 0
            && appendOne(Substring(inner), to: message, context: item, served: served)
            && sd_bus_message_close_container(message) >= 0
    }

    private func appendString(_ string: String, _ type: Character, _ message: OpaquePointer) -> Bool {
        string.withCString { sd_bus_message_append_basic(message, CChar(UInt8(type.asciiValue!)), $0) } >= 0
    }

    /// The first complete type of `signature` (`a{sv}` of `a{sv}s`).
    static func firstCompleteType(_ signature: Substring) -> Substring {
        guard let first = signature.first else { return signature }
        switch first {
        case "a":
            return signature.prefix(1 + firstCompleteType(signature.dropFirst()).count)
        case "(", "{":
            let close: Character = first == "(" ? ")" : "}"
            var depth = 0
            for (offset, character) in signature.enumerated() {
                if character == "(" || character == "{" { depth += 1 }
                if character == ")" || character == "}" { depth -= 1 }
                if depth == 0 && character == close { return signature.prefix(offset + 1) }
            }
            return signature
        default:
            return signature.prefix(1)
        }
    }
}

/// What a script served, for the checks after the operation: written by
/// the connection's thread while the client waits for each answer, read
/// once the operation has returned.
final class Served: @unchecked Sendable {
    /// Every set of attributes served for an item, by its path.
    var attributes: [String: [[String: String]]] = [:]
    /// Every secret served, with the path of the item it was served for,
    /// and whether it was served encrypted (under a key exchange the
    /// script answered).
    var secrets: [(path: String, bytes: [UInt8], encrypted: Bool)] = []
    /// Whether the script answered the key exchange with a key of its own
    /// bytes. Its secrets are then ciphertext under a key it cannot know:
    /// the client's decryption of one passes the padding check about once
    /// in 256 and yields bytes nobody served (the protocol authenticates
    /// nothing), which the client cannot tell from a secret.
    var answeredKeyExchange = false

    /// Whether an item at `path` was served with `service` and `username`.
    func served(_ path: String, service: String, username: String) -> Bool {
        attributes[path]?.contains { $0["service"] == service && $0["username"] == username } ?? false
    }
}
