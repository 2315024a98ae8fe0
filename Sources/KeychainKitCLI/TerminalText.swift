// SPDX-License-Identifier: MIT
import KeychainKitSystem
import KeychainKitAPI

/// Text made safe to show on a terminal.
enum TerminalText {

    /// `text` with every control character (C0, DEL and C1: what can start
    /// or carry a terminal escape sequence) written as `\xNN` and each
    /// backslash doubled, so the escaped form cannot be mistaken for a name
    /// that held those four characters.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x5C:
                escaped += "\\\\"
            case 0x00...0x1F, 0x7F...0x9F:
                escaped += "\\x" + lowercaseHex(scalar.value, width: 2)
            default:
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
