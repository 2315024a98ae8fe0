// SPDX-License-Identifier: MIT
import CKeychainKitMemory

/// A new file beside another, for writing and then renaming over it.
package enum UniqueFile {

    /// Creates `prefix` followed by six random letters and digits (mode
    /// 0600, closed on exec from the start); its descriptor and path, or
    /// `nil` with `errno` set.
    package static func create(prefix: String) -> (fd: Int32, path: String)? {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { keychainkit_create_unique_file($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        return (fd, template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }
}
