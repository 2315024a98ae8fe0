// SPDX-License-Identifier: MIT
import KeychainKitSystem
#if canImport(Glibc)
import Glibc
#endif

/// The JSON of the docker-credential-helpers protocol, read and written as
/// the helpers' Go code does (encoding/json), without Foundation:
///
/// - reading: one JSON value (what follows it is ignored, as
///   `json.Decoder.Decode` does), nested at most 10,000 deep; each member
///   of the object sets the field its name matches, exactly or else
///   case-insensitively (ASCII), the last one winning; `null` leaves a
///   field as it was.
///   The error texts are Go's for the common faults (`EOF`,
///   `unexpected EOF`, `invalid character 'x' looking for beginning of
///   value`, a field of another type), so Docker and Podman show what they
///   show for the upstream helpers;
/// - writing: strings quoted as Go quotes them, HTML-safe (`<`, `>`, `&`,
///   U+2028 and U+2029 as `\uXXXX`), invalid UTF-8 as U+FFFD.
///
/// String values are bytes (UTF-8), so a secret can be wiped: every string
/// the parse made is wiped before it is released, and the fields returned
/// are copies of their own.
package enum CredentialJSON {

    /// A fault in the input, with Go's words for it.
    package struct Fault: Error {
        package let message: String
    }

    /// The string fields named `fields` of the object `input` holds (a
    /// field absent or `null` is missing from the result); every string
    /// the parse copied is wiped. `structName` names the Go type in a
    /// type fault ("credentials.Credentials").
    package static func stringFields(
        _ fields: [String], of input: [UInt8], structName: String
    ) throws(Fault) -> [String: [UInt8]] {
        var parser = Parser(input)
        defer { parser.wipe() }
        guard let value = try parser.value() else { return [:] }  // null: every field missing
        guard case let .object(members) = value else {
            throw Fault(message: "json: cannot unmarshal \(value.kind) into Go value of type \(structName)")
        }
        var found: [String: [UInt8]] = [:]
        var typeFault: Fault?
        for member in members {
            // Go: the field of that exact name, else one whose name folds to it.
            guard let field = fields.first(where: { member.key.elementsEqual($0.utf8) })
                ?? fields.first(where: { Self.foldedEqual(member.key, Array($0.utf8)) }) else { continue }
            switch member.value {
            case let .string(bytes):
                found[field]?.wipe()
                found[field] = Self.copy(bytes)
            case .null: continue
            default:
                let goType = structName.split(separator: ".").last.map(String.init) ?? structName
                typeFault = typeFault ?? Fault(
                    message: "json: cannot unmarshal \(member.value.kind) into Go struct field \(goType).\(field) of type string")
            }
        }
        if let typeFault {
            for key in found.keys { found[key]?.wipe() }
            throw typeFault
        }
        return found
    }

    /// `bytes` in storage of its own, not shared with the parse tree.
    private static func copy(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, count in
            _ = buffer.initialize(from: bytes)
            count = bytes.count
        }
    }

    /// `text` as a JSON string, quoted as Go's encoder quotes it.
    package static func quoted(_ text: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 6 + 2)  // never regrown: no stale copy of a secret
        out.append(UInt8(ascii: "\""))
        var index = 0
        func escape(_ scalar: UInt32) {
            out += Array("\\u\(lowercaseHex(scalar, width: 4))".utf8)
        }
        while index < text.count {
            let byte = text[index]
            if byte < 0x80 {
                switch byte {
                case UInt8(ascii: "\""): out += Array("\\\"".utf8)
                case UInt8(ascii: "\\"): out += Array("\\\\".utf8)
                case UInt8(ascii: "\n"): out += Array("\\n".utf8)
                case UInt8(ascii: "\r"): out += Array("\\r".utf8)
                case UInt8(ascii: "\t"): out += Array("\\t".utf8)
                case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"): escape(UInt32(byte))
                case 0..<0x20: escape(UInt32(byte))
                default: out.append(byte)
                }
                index += 1
                continue
            }
            guard let (scalar, length) = UTF8Scalar.decode(text, at: index) else {
                escape(0xFFFD)  // Go writes \ufffd for each invalid byte
                index += 1
                continue
            }
            if scalar == 0x2028 || scalar == 0x2029 { escape(scalar) } else { out += text[index..<index + length] }
            index += length
        }
        out.append(UInt8(ascii: "\""))
        return out
    }

    /// Whether two keys are equal under Go's `strings.EqualFold` for ASCII
    /// (the field names here are ASCII).
    private static func foldedEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { lower($0) == lower($1) }
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    // MARK: Parsing

    /// A parsed JSON value: strings as bytes, everything else only by kind.
    indirect enum Value {
        case object([(key: [UInt8], value: Value)])
        case string([UInt8])
        case other(kind: String)
        case null

        /// Go's word for the kind, as in "cannot unmarshal number".
        var kind: String {
            switch self {
            case .object: "object"
            case .string: "string"
            case let .other(kind): kind
            case .null: "null"
            }
        }
    }

    private struct Parser {
        let input: [UInt8]
        var position = 0
        /// How deep the value being parsed is nested.
        var depth = 0
        /// Every string parsed, to wipe.
        var strings: [[UInt8]] = []

        /// Go's `maxNestingDepth`.
        static let deepest = 10_000

        init(_ input: [UInt8]) {
            self.input = input
        }

        /// Wipes every string parsed, in its own storage (shared with the
        /// parse tree, which is dropped after: wiping through a copy would
        /// leave the original).
        mutating func wipe() {
            for string in strings {
                string.withUnsafeBufferPointer { buffer in
                    if let base = buffer.baseAddress { explicit_bzero(UnsafeMutableRawPointer(mutating: base), buffer.count) }
                }
            }
            strings.removeAll()
        }

        /// The first value of the input; `nil` for `null`.
        mutating func value() throws(Fault) -> Value? {
            skipSpace()
            guard position < input.count else { throw Fault(message: "EOF") }
            let parsed = try parseValue()
            if case .null = parsed { return nil }
            return parsed
        }

        private mutating func parseValue() throws(Fault) -> Value {
            skipSpace()
            guard let byte = peek() else { throw Fault(message: "unexpected EOF") }
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                depth += 1
                if depth > Self.deepest { throw invalid(byte, "exceeded max depth") }
            }
            defer { if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { depth -= 1 } }
            switch byte {
            case UInt8(ascii: "{"): return try parseObject()
            case UInt8(ascii: "["): return try parseArray()
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): try literal("true"); return .other(kind: "bool")
            case UInt8(ascii: "f"): try literal("false"); return .other(kind: "bool")
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try parseNumber(); return .other(kind: "number")
            default: throw invalid(byte, "looking for beginning of value")
            }
        }

        private mutating func parseObject() throws(Fault) -> Value {
            position += 1  // {
            var members: [(key: [UInt8], value: Value)] = []
            skipSpace()
            if peek() == UInt8(ascii: "}") { position += 1; return .object(members) }
            while true {
                skipSpace()
                guard let byte = peek() else { throw Fault(message: "unexpected EOF") }
                guard byte == UInt8(ascii: "\"") else { throw invalid(byte, "looking for beginning of object key string") }
                let key = try parseString()
                skipSpace()
                guard let colon = peek() else { throw Fault(message: "unexpected EOF") }
                guard colon == UInt8(ascii: ":") else { throw invalid(colon, "after object key") }
                position += 1
                members.append((key, try parseValue()))
                skipSpace()
                guard let next = peek() else { throw Fault(message: "unexpected EOF") }
                position += 1
                if next == UInt8(ascii: "}") { return .object(members) }
                guard next == UInt8(ascii: ",") else { position -= 1; throw invalid(next, "after object key:value pair") }
            }
        }

        private mutating func parseArray() throws(Fault) -> Value {
            position += 1  // [
            skipSpace()
            if peek() == UInt8(ascii: "]") { position += 1; return .other(kind: "array") }
            while true {
                _ = try parseValue()
                skipSpace()
                guard let next = peek() else { throw Fault(message: "unexpected EOF") }
                position += 1
                if next == UInt8(ascii: "]") { return .other(kind: "array") }
                guard next == UInt8(ascii: ",") else { position -= 1; throw invalid(next, "after array element") }
            }
        }

        /// A string's bytes (UTF-8), its escapes resolved.
        private mutating func parseString() throws(Fault) -> [UInt8] {
            position += 1  // "
            var bytes: [UInt8] = []
            // Room for the whole string at once: never regrown, so no stale
            // copy of a secret is left behind.
            bytes.reserveCapacity(closingQuoteDistance() * 4)
            defer { strings.append(bytes) }
            while true {
                guard let byte = peek() else { throw Fault(message: "unexpected EOF") }
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return bytes
                case UInt8(ascii: "\\"):
                    guard let escaped = peek() else { throw Fault(message: "unexpected EOF") }
                    position += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escaped)
                    case UInt8(ascii: "b"): bytes.append(8)
                    case UInt8(ascii: "f"): bytes.append(12)
                    case UInt8(ascii: "n"): bytes.append(10)
                    case UInt8(ascii: "r"): bytes.append(13)
                    case UInt8(ascii: "t"): bytes.append(9)
                    case UInt8(ascii: "u"): UTF8Scalar.append(try parseEscapedScalar(), to: &bytes)
                    default: position -= 1; throw invalid(escaped, "in string escape code")
                    }
                case 0..<0x20:
                    position -= 1
                    throw invalid(byte, "in string literal")
                default:
                    bytes.append(byte)
                }
            }
        }

        /// How many bytes from here to the string's closing quote (or the
        /// input's end): an upper bound of its escaped length.
        private func closingQuoteDistance() -> Int {
            var index = position
            while index < input.count {
                if input[index] == UInt8(ascii: "\\") { index += 2; continue }
                if input[index] == UInt8(ascii: "\"") { break }
                index += 1
            }
            return min(index, input.count) - position + 1
        }

        /// The scalar of `\uXXXX` (the `\u` read), joining a surrogate pair;
        /// a lone surrogate is U+FFFD, as in Go.
        private mutating func parseEscapedScalar() throws(Fault) -> UInt32 {
            let first = try hex4()
            guard (0xD800..<0xDC00).contains(first) else { return (0xDC00..<0xE000).contains(first) ? 0xFFFD : first }
            let mark = position
            if peek() == UInt8(ascii: "\\"), position + 1 < input.count, input[position + 1] == UInt8(ascii: "u") {
                position += 2
                let second = try hex4()
                if (0xDC00..<0xE000).contains(second) { return 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00) }
            }
            position = mark
            return 0xFFFD
        }

        private mutating func hex4() throws(Fault) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let byte = peek() else { throw Fault(message: "unexpected EOF") }
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw invalid(byte, "in \\u hexadecimal character escape")
                }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            return value
        }

        private mutating func literal(_ word: String) throws(Fault) {
            for expected in word.utf8 {
                guard let byte = peek() else { throw Fault(message: "unexpected EOF") }
                guard byte == expected else {
                    throw invalid(byte, "in literal \(word) (expecting \(Self.quote(expected)))")
                }
                position += 1
            }
        }

        /// A number, as JSON's grammar (and Go's scanner) has it:
        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
        private mutating func parseNumber() throws(Fault) {
            let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
            func digitsFollow(_ context: String) throws(Fault) {
                guard let byte = peek() else { throw Fault(message: "unexpected EOF") }
                guard digits.contains(byte) else { throw invalid(byte, context) }
                while let next = peek(), digits.contains(next) { position += 1 }
            }
            if peek() == UInt8(ascii: "-") { position += 1 }
            if peek() == UInt8(ascii: "0") {
                position += 1
            } else {
                try digitsFollow("in numeric literal")
            }
            if peek() == UInt8(ascii: ".") {
                position += 1
                try digitsFollow("after decimal point in numeric literal")
            }
            if let exponent = peek(), exponent == UInt8(ascii: "e") || exponent == UInt8(ascii: "E") {
                position += 1
                if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { position += 1 }
                try digitsFollow("in exponent of numeric literal")
            }
        }

        private mutating func skipSpace() {
            while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
        }

        private func peek() -> UInt8? {
            position < input.count ? input[position] : nil
        }

        private func invalid(_ byte: UInt8, _ context: String) -> Fault {
            Fault(message: "invalid character \(Self.quote(byte)) \(context)")
        }

        /// A byte as Go's `quoteChar` shows it.
        static func quote(_ byte: UInt8) -> String {
            switch byte {
            case UInt8(ascii: "'"): return "'\\''"
            case UInt8(ascii: "\""): return "'\"'"
            case UInt8(ascii: "\n"): return "'\\n'"
            case UInt8(ascii: "\r"): return "'\\r'"
            case UInt8(ascii: "\t"): return "'\\t'"
            case 0x20..<0x7F: return "'\(Character(Unicode.Scalar(byte)))'"
            default:
                return "'\\x\(lowercaseHex(UInt32(byte), width: 2))'"
            }
        }
    }
}

/// UTF-8 scalars, decoded and encoded by hand (the input may be invalid).
package enum UTF8Scalar {

    /// The scalar at `index` and its length in bytes; `nil` when the bytes
    /// there are not valid UTF-8.
    package static func decode(_ bytes: [UInt8], at index: Int) -> (UInt32, Int)? {
        let lead = bytes[index]
        let (length, initial, minimum): (Int, UInt32, UInt32) =
            switch lead {
            case 0xC2...0xDF: (2, UInt32(lead & 0x1F), 0x80)
            case 0xE0...0xEF: (3, UInt32(lead & 0x0F), 0x800)
            case 0xF0...0xF4: (4, UInt32(lead & 0x07), 0x10000)
            default: (0, 0, 0)
            }
        guard length > 0, index + length <= bytes.count else { return nil }
        var scalar = initial
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return nil }
            scalar = scalar << 6 | UInt32(byte & 0x3F)
        }
        guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800..<0xE000).contains(scalar) else { return nil }
        return (scalar, length)
    }

    /// Appends `scalar` (at most U+10FFFF, no surrogate) as UTF-8.
    package static func append(_ scalar: UInt32, to bytes: inout [UInt8]) {
        switch scalar {
        case 0..<0x80: bytes.append(UInt8(scalar))
        case 0x80..<0x800: bytes += [UInt8(0xC0 | scalar >> 6), UInt8(0x80 | scalar & 0x3F)]
        case 0x800..<0x10000:
            bytes += [UInt8(0xE0 | scalar >> 12), UInt8(0x80 | scalar >> 6 & 0x3F), UInt8(0x80 | scalar & 0x3F)]
        default:
            bytes += [UInt8(0xF0 | scalar >> 18), UInt8(0x80 | scalar >> 12 & 0x3F),
                      UInt8(0x80 | scalar >> 6 & 0x3F), UInt8(0x80 | scalar & 0x3F)]
        }
    }
}
