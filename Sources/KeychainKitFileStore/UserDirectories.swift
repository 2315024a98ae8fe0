// SPDX-License-Identifier: MIT
import KeychainKitSystem

#if canImport(Glibc)
import Glibc
#endif

/// The XDG base directories the file store uses, read from the
/// environment as the XDG Base Directory specification says: a value that
/// is not an absolute path is ignored; one that is not UTF-8 is refused
/// (``NotUTF8``), never changed into another path.
package enum UserDirectories {

    /// `$XDG_DATA_HOME`, else `$HOME/.local/share`, else the passwd
    /// entry's home + `/.local/share`.
    package static func dataHome() throws(NotUTF8) -> String {
        if let data = try EnvironmentText.absolutePath("XDG_DATA_HOME") { return data }
        return try home() + "/.local/share"
    }

    /// `$HOME` when absolute, else the passwd entry's directory, else "/".
    static func home() throws(NotUTF8) -> String {
        if let home = try EnvironmentText.absolutePath("HOME") { return home }
        if let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir {
            guard let home = String(validatingCString: directory) else { throw NotUTF8("the passwd entry's home directory") }
            return home
        }
        return "/"
    }
}
