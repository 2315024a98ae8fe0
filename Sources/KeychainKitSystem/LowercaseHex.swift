// SPDX-License-Identifier: MIT
/// `value` as `width` lowercase hexadecimal digits (the low ones): the one
/// spelling of the escapes the library and its tool write (`%2f` in a bus
/// address, `\x1b` on a terminal, `\u003c` in JSON).
package func lowercaseHex(_ value: UInt32, width: Int) -> String {
    let digits = Array("0123456789abcdef".unicodeScalars)
    var text = ""
    for shift in stride(from: 4 * (width - 1), through: 0, by: -4) {
        text.unicodeScalars.append(digits[Int((value >> UInt32(shift)) & 15)])
    }
    return text
}
