// SPDX-License-Identifier: MIT
import CSDBus

/// A D-Bus value of the types a server's properties hold, written into a
/// message by ``BusMessage/append(_:)`` or, in a variant, by
/// ``BusMessage/append(variant:)``.
package enum BusValue {
    case string(String)
    case objectPath(String)
    case bool(Bool)
    case uint64(UInt64)
    case objectPaths([String])
    case dictionary([(key: String, value: String)])

    /// Its D-Bus signature.
    package var signature: String {
        switch self {
        case .string: "s"
        case .objectPath: "o"
        case .bool: "b"
        case .uint64: "t"
        case .objectPaths: "ao"
        case .dictionary: "a{ss}"
        }
    }
}

extension BusMessage {

    /// Appends `value`.
    package func append(_ value: BusValue) throws(BusFailure) {
        switch value {
        case let .string(text): try append(text)
        case let .objectPath(path): try append(path, as: "o")
        case let .bool(flag): try append(flag)
        case var .uint64(number):
            try BusFailure.check(sd_bus_message_append_basic(raw, CChar(bitPattern: UInt8(ascii: "t")), &number), "building a D-Bus message")
        case let .objectPaths(paths): try append(objectPaths: paths)
        case let .dictionary(entries): try append(dictionary: entries)
        }
    }

    /// Appends `value` in a variant (`v`).
    package func append(variant value: BusValue) throws(BusFailure) {
        try openContainer("v", value.signature)
        try append(value)
        try closeContainer()
    }

    /// Appends a property dictionary (`a{sv}`).
    package func append(properties: [(name: String, value: BusValue)]) throws(BusFailure) {
        try openContainer("a", "{sv}")
        for (name, value) in properties {
            try openContainer("e", "sv")
            try append(name)
            try append(variant: value)
            try closeContainer()
        }
        try closeContainer()
    }

    /// Reads a property dictionary (`a{sv}`): `body` gets each name and
    /// its variant's signature, and reads the value with the reader's
    /// methods (the variant entered for it) returning `true`, or returns
    /// `false` to have it skipped.
    package func readProperties(_ body: (String, String) throws(BusFailure) -> Bool) throws(BusFailure) {
        try enterContainer("a", "{sv}")
        while try enterElement("e", "sv") {
            let name = try readString()
            guard let (_, contents) = try peekType() else { throw BusFailure.malformed("reading a property dictionary") }
            try enterContainer("v", contents)
            if try !body(name, contents) { try skip(contents) }
            try exitContainer()
            try exitContainer()
        }
        try exitContainer()
    }
}
