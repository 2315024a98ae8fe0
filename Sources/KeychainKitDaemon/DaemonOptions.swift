// SPDX-License-Identifier: MIT
import KeychainKit

/// The command line of `keychainkitd`.
struct DaemonOptions {
    var replace = false
    var masterFD: Int32?
    var dataDirectory = UserDirectories.dataHome + "/keyrings/v1"
    /// Seconds a shown unlock prompt waits for a terminal's unlock.
    var promptTimeout = 120

    static let usage = """
        usage: keychainkitd [--replace] [--master-fd N] [--data-dir DIR] [--prompt-timeout S]

        A Secret Service (org.freedesktop.secrets) on the session bus, its
        collections kept in keyring files (libsecret's and oo7's format),
        one per collection: DIR/NAME.keyring (default
        $XDG_DATA_HOME/keyrings/v1). Runs in the foreground; SIGTERM ends it.

          --replace        take the name from the service that owns it
          --master-fd N    read the login collection's password from
                           descriptor N (to its end), as gnome-keyring-daemon
                           --unlock reads stdin; else the systemd credential
                           keychainkit.master; else the collections start
                           locked (keychainkit unlock opens them)
          --data-dir DIR   where the keyring files are
          --prompt-timeout S
                           how long a client's unlock prompt waits for
                           keychainkit unlock from a terminal before it is
                           dismissed (default 120 seconds)
          --version        print the version
          --help           print this help

        Exit status: 0 ended by SIGTERM or SIGINT, or the name was taken
        over by --replace; 1 another service owns the name; 2 usage;
        3 no session bus; 4 the password opens none of the login
        collection's items, or a keyring file cannot be read.
        """

    enum Parsed {
        case run(DaemonOptions)
        case help
        case version
    }

    /// Reads `arguments` (without the program's name).
    static func parse(_ arguments: [String]) throws(UsageError) -> Parsed {
        var options = DaemonOptions()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--replace": options.replace = true
            case "--help", "-h": return .help
            case "--version": return .version
            case "--master-fd":
                guard let text = rest.popFirst(), let fd = Int32(text), fd >= 0 else {
                    throw UsageError("--master-fd takes a file descriptor number")
                }
                options.masterFD = fd
            case "--prompt-timeout":
                guard let text = rest.popFirst(), let seconds = Int(text), seconds > 0, seconds <= 86_400 else {
                    throw UsageError("--prompt-timeout takes 1 to 86400 seconds")
                }
                options.promptTimeout = seconds
            case "--data-dir":
                guard let directory = rest.popFirst(), !directory.isEmpty else { throw UsageError("--data-dir takes a directory") }
                options.dataDirectory = directory
            default:
                throw UsageError("unknown argument '\(argument)'")
            }
        }
        return .run(options)
    }

    struct UsageError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }
}
