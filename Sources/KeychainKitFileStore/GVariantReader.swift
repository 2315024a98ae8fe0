// SPDX-License-Identifier: MIT
import KeychainKitSystem

/// Reads the few GVariant shapes the keyring file holds (the inverse of
/// ``GVariantWriter``), little-endian, from bytes nobody vouches for:
/// every length and framing offset is checked against its container, and
/// anything GLib would not have written in normal form (an offset out of
/// order or out of bounds, a string without its NUL or holding one, text
/// that is not UTF-8, leftover bytes) is ``Malformed`` — never a crash,
/// never a read outside the bytes.
struct GVariantReader {

    /// The value's bytes are not a GVariant of the expected type.
    struct Malformed: Error {
        /// What was wrong, for the error message (never a secret).
        let reason: String
    }

    let bytes: [UInt8]

    /// The range of the whole value within `bytes`.
    let range: Range<Int>

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        range = bytes.indices
    }

    /// A reader of the value in `range` of `bytes` (within them), sharing
    /// their storage.
    init(_ bytes: [UInt8], _ range: Range<Int>) {
        self.bytes = bytes
        self.range = range
    }

    /// How a tuple member is laid out.
    enum Shape {
        case fixed(size: Int, alignment: Int)
        case variable(alignment: Int)
    }

    /// The members of a tuple or dict entry of `shapes`, as readers over
    /// their bytes.
    func tuple(_ shapes: [Shape]) throws(Malformed) -> [GVariantReader] {
        let variableEnds = shapes.dropLast().filter { if case .variable = $0 { true } else { false } }.count
        let width = Self.offsetWidth(range.count)
        let offsetsStart = range.count - width * variableEnds
        guard offsetsStart >= 0 else { throw Malformed(reason: "a tuple too short for its framing offsets") }
        var members: [GVariantReader] = []
        var position = 0, offsetIndex = 0
        for (index, shape) in shapes.enumerated() {
            let start: Int, end: Int
            switch shape {
            case let .fixed(size, alignment):
                start = Self.aligned(position, alignment)
                end = start + size
            case let .variable(alignment):
                start = Self.aligned(position, alignment)
                if index == shapes.count - 1 {
                    end = offsetsStart
                } else {
                    // Offsets are stored from the end, first member's last.
                    end = try offset(at: range.count - width * (offsetIndex + 1), width: width)
                    offsetIndex += 1
                }
            }
            guard start <= end, end <= offsetsStart else { throw Malformed(reason: "a tuple member out of bounds") }
            members.append(GVariantReader(bytes, (range.lowerBound + start)..<(range.lowerBound + end)))
            position = end
        }
        return members
    }

    /// Calls `body` with each element of an array of variable-size elements
    /// of alignment 1, in order, holding none of them: what a file of
    /// millions of elements costs is their bytes, not a reader each.
    func forEachVariable(_ body: (GVariantReader) throws(Malformed) -> Void) throws(Malformed) {
        guard !range.isEmpty else { return }
        let width = Self.offsetWidth(range.count)
        let offsetsStart = try offset(at: range.count - width, width: width)
        guard offsetsStart <= range.count - width, (range.count - offsetsStart) % width == 0 else {
            throw Malformed(reason: "an array's framing offsets out of bounds")
        }
        var start = 0
        for index in 0..<((range.count - offsetsStart) / width) {
            let end = try offset(at: offsetsStart + index * width, width: width)
            guard start <= end, end <= offsetsStart else { throw Malformed(reason: "an array element out of bounds") }
            try body(GVariantReader(bytes, (range.lowerBound + start)..<(range.lowerBound + end)))
            start = end
        }
    }

    /// The two members of a dict entry or tuple of two variable-size
    /// members of alignment 1 (`{say}`, `(a{say}ay)`), as ``tuple(_:)``
    /// reads them, without an array.
    func pair() throws(Malformed) -> (GVariantReader, GVariantReader) {
        let width = Self.offsetWidth(range.count)
        let offsetsStart = range.count - width
        guard offsetsStart >= 0 else { throw Malformed(reason: "a tuple too short for its framing offsets") }
        let end = try offset(at: offsetsStart, width: width)
        guard end <= offsetsStart else { throw Malformed(reason: "a tuple member out of bounds") }
        return (GVariantReader(bytes, range.lowerBound..<(range.lowerBound + end)),
                GVariantReader(bytes, (range.lowerBound + end)..<(range.lowerBound + offsetsStart)))
    }

    /// Checks that the value is an `s` without making a String of it.
    func validateString() throws(Malformed) {
        guard let last = range.last, bytes[last] == 0 else { throw Malformed(reason: "a string without its NUL") }
        let text = bytes[range.lowerBound..<last]
        guard !text.contains(0) else { throw Malformed(reason: "a string holding NUL") }
        guard text.withContiguousStorageIfAvailable({ String(validating: $0, as: UTF8.self) != nil }) ?? (String(validating: text, as: UTF8.self) != nil) else {
            throw Malformed(reason: "a string that is not UTF-8")
        }
    }

    /// `u`.
    func uint32() throws(Malformed) -> UInt32 {
        guard range.count == 4 else { throw Malformed(reason: "a u of \(range.count) bytes") }
        return UInt32(truncatingIfNeeded: littleEndian(range))
    }

    /// `t`.
    func uint64() throws(Malformed) -> UInt64 {
        guard range.count == 8 else { throw Malformed(reason: "a t of \(range.count) bytes") }
        return littleEndian(range)
    }

    /// `ay`.
    func byteArray() -> [UInt8] { Array(bytes[range]) }

    /// `ay` holding a secret: copied to secret memory only.
    func secret() -> SecretBuffer {
        bytes.withUnsafeBytes { SecretBuffer(copying: UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// `s`: UTF-8 ending in its one NUL.
    func string() throws(Malformed) -> String {
        guard let last = range.last, bytes[last] == 0 else { throw Malformed(reason: "a string without its NUL") }
        let text = bytes[range.lowerBound..<last]
        guard !text.contains(0) else { throw Malformed(reason: "a string holding NUL") }
        guard let string = String(validating: text, as: UTF8.self) else {
            throw Malformed(reason: "a string that is not UTF-8")
        }
        return string
    }

    /// The framing offset of `width` bytes at `position` within the value.
    private func offset(at position: Int, width: Int) throws(Malformed) -> Int {
        guard position >= 0, position + width <= range.count else {
            throw Malformed(reason: "a framing offset out of bounds")
        }
        let start = range.lowerBound + position
        let value = littleEndian(start..<(start + width))
        guard value <= UInt64(range.count) else { throw Malformed(reason: "a framing offset past its container") }
        return Int(value)
    }

    private func littleEndian(_ span: Range<Int>) -> UInt64 {
        span.reversed().reduce(0) { $0 << 8 | UInt64(bytes[$1]) }
    }

    /// GLib's `gvs_get_offset_size`: the width of framing offsets in a
    /// container of `size` bytes.
    static func offsetWidth(_ size: Int) -> Int {
        size > Int(UInt32.max) ? 8 : size > Int(UInt16.max) ? 4 : size > Int(UInt8.max) ? 2 : size > 0 ? 1 : 0
    }

    static func aligned(_ position: Int, _ alignment: Int) -> Int {
        (position + alignment - 1) / alignment * alignment
    }
}
