// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// The XDG base directories the file store uses, read from the
/// environment as the XDG Base Directory specification says: a value that
/// is not an absolute path is ignored.
package enum UserDirectories {

    /// `$XDG_DATA_HOME`, else `$HOME/.local/share`, else the passwd
    /// entry's home + `/.local/share`.
    package static var dataHome: String {
        if let data = absolute("XDG_DATA_HOME") { return data }
        return home + "/.local/share"
    }

    /// `$HOME` when absolute, else the passwd entry's directory, else "/".
    static var home: String {
        if let home = absolute("HOME") { return home }
        if let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir { return String(cString: directory) }
        return "/"
    }

    /// The environment variable `name` when it holds an absolute path.
    static func absolute(_ name: String) -> String? {
        guard let value = getenv(name).map({ String(cString: $0) }), value.hasPrefix("/") else { return nil }
        return value
    }
}
