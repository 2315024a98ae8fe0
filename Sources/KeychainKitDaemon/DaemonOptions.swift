// SPDX-License-Identifier: MIT
import KeychainKitFileStore
import KeychainKitSystem

/// The command line of `keychainkitd`.
struct DaemonOptions {
    var replace = false
    var masterFD: Int32?
    /// `--data-dir`, else `$XDG_DATA_HOME/keyrings/v1`.
    var dataDirectory = ""
    /// Seconds a shown unlock prompt waits for a terminal's unlock.
    var promptTimeout = 120

    static let usage = """
        usage: keychainkitd [--replace] [--master-fd N] [--data-dir DIR] [--prompt-timeout S]

        A Secret Service for machines with no desktop, KeychainKit's own: it
        owns org.freedesktop.secrets on the session bus
        (DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus), so that
        secret-tool, libsecret, Python keyring, git's and Docker's helpers and
        KeychainKit work there: servers, SSH logins, containers, CI.
        Each collection is one keyring file in libsecret's and oo7's format,
        DIR/NAME.keyring; the alias default names the login collection, and
        session is a collection in memory until the daemon ends. Aliases set
        by clients are kept in DIR/aliases (those of session end with the
        daemon). It runs in
        the foreground and writes to standard error only what an
        administrator acts on.

        The login collection's password comes from --master-fd, else the
        systemd credential keychainkit.master (a unit's LoadCredential= or
        LoadCredentialEncrypted=). Without one the collections start locked:
        a client's unlock prompt then waits until someone runs keychainkit
        unlock (over SSH too), and a wrong password leaves them locked.

        It is not dumpable, and it locks its memory against swapping where
        the system allows all of it (CAP_IPC_LOCK, or RLIMIT_MEMLOCK of
        1 GiB or more: LimitMEMLOCK= in the user manager's configuration);
        otherwise it says so once at start.

        options:
          --replace          take the name from the service that owns it
          --master-fd N      read the login password from descriptor N, to its end
          --data-dir DIR     where the keyring files are (default
                             $XDG_DATA_HOME/keyrings/v1, oo7-daemon's)
          --prompt-timeout S seconds an unlock prompt waits for keychainkit
                             unlock before it is dismissed (default 120)
          --version          print the version
          --help             print this help

        exit codes:
          0  ended by SIGTERM or SIGINT, by the end of the session bus, or by
             another keychainkitd --replace
          1  another service owns org.freedesktop.secrets
          2  a usage error
          3  no session bus, or the bus failed
          4  the password opens none of the login collection's items, or a
             keyring file or directory cannot be used
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
        if options.dataDirectory.isEmpty {
            do throws(NotUTF8) { options.dataDirectory = try UserDirectories.dataHome() + "/keyrings/v1" } catch {
                throw UsageError("\(error.description): give --data-dir")
            }
        }
        return .run(options)
    }

    struct UsageError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }
}
