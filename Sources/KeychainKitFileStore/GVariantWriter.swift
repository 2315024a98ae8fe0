// SPDX-License-Identifier: MIT
import KeychainKitSystem

/// Serializes the few GVariant shapes the keyring file holds, in GLib's
/// normal form, little-endian (GLib's `g_variant_store` on a
/// little-endian machine; libsecret ≥ 0.20.2 always writes little-endian).
///
/// Each member is serialized on its own and then placed in its container
/// at an offset aligned to its alignment, which GVariant's rules make
/// equivalent to serializing in place. Framing offsets follow
/// `gvs_calculate_total_size`: the smallest width in which every offset
/// of the container, and its whole size, fit.
enum GVariantWriter {

    /// One member of a tuple: its bytes (or a secret's, which stay in
    /// secret memory until the tuple takes them), its alignment, and
    /// whether its type is of variable size (then a framing offset records
    /// its end, unless it is the last member).
    struct Member {
        var bytes: [UInt8]
        var secret: SecretBuffer? = nil
        var alignment: Int
        var isVariable: Bool

        static func uint32(_ value: UInt32) -> Member {
            Member(bytes: withUnsafeBytes(of: value.littleEndian, Array.init), alignment: 4, isVariable: false)
        }

        static func uint64(_ value: UInt64) -> Member {
            Member(bytes: withUnsafeBytes(of: value.littleEndian, Array.init), alignment: 8, isVariable: false)
        }

        /// `s`: the UTF-8 bytes and a NUL.
        static func string(_ value: String) -> Member {
            Member(bytes: Array(value.utf8) + [0], alignment: 1, isVariable: true)
        }

        /// `ay`: the bytes as they are.
        static func bytes(_ value: [UInt8]) -> Member {
            Member(bytes: value, alignment: 1, isVariable: true)
        }

        /// `ay` of a secret's bytes.
        static func secret(_ value: SecretBuffer) -> Member {
            Member(bytes: [], secret: value, alignment: 1, isVariable: true)
        }

        /// An array of variable-size elements (`a{ss}`, `a(a{say}ay)`),
        /// each already serialized, all of alignment 1.
        static func array(of elements: [[UInt8]]) -> Member {
            var body: [UInt8] = []
            var ends: [Int] = []
            for element in elements {
                body.appendWipingOldStorage(element)
                ends.append(body.count)
            }
            appendOffsets(ends, to: &body)
            return Member(bytes: body, alignment: 1, isVariable: true)
        }
    }

    /// A tuple or dict entry of `members`. Built in one buffer whose
    /// outgrown storage is wiped (an item's plaintext holds its secret);
    /// the caller wipes the result.
    static func tuple(_ members: [Member]) -> [UInt8] {
        var body: [UInt8] = []
        var ends: [Int] = []
        for (index, member) in members.enumerated() {
            let padding = (member.alignment - body.count % member.alignment) % member.alignment
            if padding > 0 { body.appendWipingOldStorage([UInt8](repeating: 0, count: padding)) }
            if let secret = member.secret {
                secret.withUnsafeBytes { body.appendWipingOldStorage($0) }
            } else {
                body.appendWipingOldStorage(member.bytes)
            }
            if member.isVariable && index != members.count - 1 { ends.append(body.count) }
        }
        // A tuple's framing offsets are stored last member first.
        appendOffsets(ends.reversed(), to: &body)
        return body
    }

    /// Appends `ends` to `body` as its framing offsets.
    private static func appendOffsets(_ ends: [Int], to body: inout [UInt8]) {
        let width = offsetWidth(body: body.count, offsets: ends.count)
        var offsets: [UInt8] = []
        offsets.reserveCapacity(width * ends.count)
        for end in ends {
            for byte in 0..<width { offsets.append(UInt8(truncatingIfNeeded: UInt64(end) >> (8 * UInt64(byte)))) }
        }
        body.appendWipingOldStorage(offsets)
    }

    /// The width of the framing offsets of a container whose body is
    /// `body` bytes and which has `offsets` of them.
    static func offsetWidth(body: Int, offsets: Int) -> Int {
        if offsets == 0 { return 0 }
        for width in [1, 2, 4] where body + width * offsets <= (1 << (8 * width)) - 1 { return width }
        return 8
    }
}
