// SPDX-License-Identifier: MIT
import KeychainKitAPI

/// A parsed command line.
struct Invocation {

    enum Command {
        case set(account: String)
        case get(account: String, newline: Bool)
        /// The secrets of several accounts (every account of the service
        /// when `accounts` is empty), read together, printed in `format`.
        case getMany(accounts: [String], format: ManyValuesFormat)
        case remove(account: String)
        case list
        /// What the keychain is and how long its items last.
        case info
        /// Runs `command` with the variables of `envFiles` (in order), then
        /// the secrets of `bindings`, in its environment.
        case run(envFiles: [String], bindings: [(name: String, account: String)], command: [String])
        /// Writes `input` (a template file; `nil`: stdin) with its
        /// references' secrets in place, to `output` (`nil`: stdout).
        case inject(input: String?, output: String?)
        case watch(account: String, interval: Duration?)
        /// git's credential helper protocol (``GitCredentialHelper``).
        case gitCredential(operation: String)
        /// Unlocks a collection of the Secret Service (`nil`: the one of
        /// `--collection`) with its password, read from `passwordDescriptor`
        /// or the terminal.
        case unlock(collection: String?, passwordDescriptor: Int32?)
        /// Locks a collection of the Secret Service.
        case lock(collection: String?)
        case help
        case version
    }

    enum Backend: String, CaseIterable {
        case secretService = "secret-service"
        /// The user's persistent kernel keyring (KernelKeyringInterface).
        case kernel
        case memory
        /// An encrypted keyring file (FileKeychainInterface).
        case file
    }

    /// The service used when `--service` is not given.
    static let defaultService = "keychainkit"

    var command: Command
    var service: String?
    var backend: Backend
    /// The default store the backend is, when no backend was named.
    var defaultStore: DefaultStore?

    /// The Secret Service options: `--collection`, `--prompt`, `--timeout`,
    /// `--prompt-timeout`, `--require-encryption`.
    var collection = "default"
    var prompts: PromptPolicy = .automatic
    var timeout = SecretServiceKeychainInterface.defaultTimeout
    var promptTimeout = SecretServiceKeychainInterface.defaultPromptTimeout
    var transfer: TransferPolicy = .preferEncrypted

    /// The file store's options: `--file` (else `$KEYCHAINKIT_FILE`, else
    /// the default path) and `--master-fd` (else the systemd credential).
    var filePath: String?
    var masterDescriptor: Int32?
    /// `--password-fd`: where `unlock` reads the password.
    var passwordDescriptor: Int32?
    /// `--cache-master`: keep the master secret in the kernel after it opens the file.
    var cacheMaster = false

    static let usage = usageText(
        timeout: SecretServiceKeychainInterface.defaultTimeout, promptTimeout: SecretServiceKeychainInterface.defaultPromptTimeout)

    private static func usageText(timeout: Duration, promptTimeout: Duration) -> String {
    """
    usage: keychainkit [--backend secret-service|kernel|file|memory] COMMAND [--service S] ...
           keychainkit [--collection C] [--prompt never|allowed|automatic]
                       [--timeout MS] [--prompt-timeout MS] [--require-encryption]
                       COMMAND ...
           keychainkit --backend file [--file PATH] [--master-fd N] [--cache-master] COMMAND ...

    Stores, reads, lists and watches secrets in the Linux keychain: the
    freedesktop Secret Service (gnome-keyring, KWallet, KeePassXC), or, where
    none runs, an encrypted file or the kernel keyring. Secrets are read from
    standard input, never from arguments.

    commands:
      set ACCOUNT       store the secret read from stdin (prompted without echo
                        on a terminal; one trailing newline is dropped)
      get ACCOUNT       print the secret and a newline
      get --json|-0 ACCOUNT... | --all
                        print the secrets of several accounts (--all: every
                        account of the service), read together: --json one
                        object {"ACCOUNT":"SECRET" or null when absent}; -0
                        ACCOUNT NUL SECRET NUL for each account found. Exit
                        1 after printing when one is absent; nothing is
                        printed when one cannot be read (locked: exit 3)
      rm ACCOUNT        remove the secret (absent is not an error)
      ls                list the accounts of the service
      info              print the backend, its store, and how long its items
                        last (persistence: persistent, until reboot, until
                        logout, until close)
      run --env NAME=ACCOUNT ... -- COMMAND [ARG...]
                        run COMMAND with each ACCOUNT's secret in environment
                        variable NAME (as envchain and op run do): never in
                        arguments or output; its exit status is COMMAND's
                        (126 not executable, 127 not found). Any process of the
                        same user can read a process's environment
                        (/proc/PID/environ), and COMMAND's children inherit it
      run --env-file FILE ... -- COMMAND [ARG...]
                        the same with the variables of a .env file: NAME=value
                        lines pass as written, NAME=keychainkit://SERVICE/ACCOUNT
                        lines get that secret (names percent-encoded where
                        they hold '/', '%' or a space); several --env-file and
                        --env combine, later ones winning; each service's
                        secrets are read in one batch, and COMMAND never
                        starts when one cannot be read
      inject [-i TEMPLATE] [-o FILE]
                        copy TEMPLATE (default stdin) to FILE (default
                        stdout) with each {{ keychainkit://SERVICE/ACCOUNT }}
                        replaced by that secret; FILE is written whole or not
                        at all (mode 0600, renamed into place), and nothing is
                        written when one secret cannot be read. The secrets
                        then live in FILE: delete it when done
      watch ACCOUNT     print a line per change until interrupted, as the
                        service announces changes
      unlock [COLLECTION]
                        Secret Service: unlock COLLECTION (default: the one of
                        --collection, "default") with its password, typed
                        without echo on a terminal, else read from stdin or
                        --password-fd: no dialog, so it works over SSH
                        (gnome-keyring, oo7-daemon); elsewhere the service's
                        own dialog, as --prompt allows. Exit 9: the password
                        was refused, the collection stays locked
      lock [COLLECTION] Secret Service: lock COLLECTION
      git-credential get|store|erase
                        git's credential helper on the Secret Service (also
                        run as git-credential-keychainkit): items shared with
                        git-credential-libsecret

    options:
      --backend secret-service|kernel|file|memory
                        where secrets are kept (default: $KEYCHAINKIT_BACKEND,
                        else secret-service; inside a Flatpak or Snap sandbox
                        with the Secret portal, file, as libsecret). file: an encrypted keyring file
                        in libsecret's format, for machines with no Secret
                        Service (see --file, --master-fd). kernel: the user's
                        persistent kernel keyring ("user" keys described
                        keychainkit:<bytes of service>:<service>:<account>;
                        values of 1 to 32767 bytes; nothing survives a
                        reboot). memory: this process only, for trying things
      --file PATH       file: the keyring file (default: $KEYCHAINKIT_FILE,
                        else ~/.local/share/keychainkit/default.keyring)
      --master-fd N     file: read the master secret from descriptor N to its
                        end, as given (printf '%s' secret, not echo); without
                        it, the systemd credential keychainkit.master
                        ($CREDENTIALS_DIRECTORY), inside a Flatpak or Snap
                        sandbox the Secret portal, else a copy --cache-master
                        kept; never a default
      --cache-master    file: once the master secret opens the file, keep a
                        copy in the kernel's persistent keyring until reboot,
                        so later runs need no --master-fd
      --service S, -s S
                        the service the account belongs to (default:
                        keychainkit)
      -n, --no-newline  get: print the exact bytes, no newline
      --json, -0, --null, --all
                        get: see get above
      --env NAME=ACCOUNT
                        run: put ACCOUNT's secret in NAME (repeatable; NAME is
                        letters, digits and _, not starting with a digit)
      --interval MS     watch: also re-read every MS milliseconds (for changes
                        no service announces: another tool's in-place update)
      --password-fd N   unlock: read the password from descriptor N to its
                        end (one trailing newline dropped); never an argument
      --collection C    Secret Service: put new items in collection C (an alias
                        such as "default" or "session", or an object path)
      --prompt never|allowed|automatic
                        Secret Service: whether a locked keyring may show its
                        unlock dialog (default automatic: only with $DISPLAY or
                        $WAYLAND_DISPLAY set)
      --timeout MS      Secret Service: the bound on each operation, all its
                        requests together (default \(timeout.components.seconds * 1000) ms; at most
                        86400000, one day)
      --prompt-timeout MS
                        Secret Service: the bound on waiting for the user
                        (default \(promptTimeout.components.seconds * 1000) ms; at most 86400000)
      --require-encryption
                        Secret Service: refuse a service that offers only
                        unencrypted ("plain") transfer of secrets (exit 5)
                        instead of using it
      --help, -h        print this help
      --version         print the version

    Names written to a terminal have their control characters escaped (\\x1b,
    and \\\\ for a backslash); to a pipe or file they are written as stored.

    environment:
      KEYCHAINKIT_BACKEND
                        the backend when --backend is not given
      KEYCHAINKIT_FILE  file: the keyring file when --file is not given
      CREDENTIALS_DIRECTORY
                        file: where systemd put the credential
                        keychainkit.master (LoadCredentialEncrypted=)
      DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR
                        where the session bus is (the Secret Service's)
      DISPLAY, WAYLAND_DISPLAY
                        a graphical session: --prompt automatic allows unlock
                        dialogs
      KEYCHAINKIT_ALLOW_CORE_DUMPS
                        1: let a crash leave a core file (by default the
                        tool is not dumpable, so no core holds a secret)

    exit codes:
      0                 success
      1                 not found
      2                 bad usage
      3                 keychain locked
      4                 no Secret Service (or kernel keyring forbidden)
      5                 access denied
      6                 canceled
      7                 other keychain error
      8                 input/output error
      9                 file: the master secret does not open the file;
                        unlock: the password was refused
      10                file: no master secret
      11                file: damaged, foreign or weak keyring file
      126, 127          run: COMMAND not executable, not found (else its own)
    """
    }

    /// What `git-credential-keychainkit --help` prints.
    static let gitHelperUsage = """
    usage: git-credential-keychainkit get|store|erase

    git's credential helper on the Secret Service (gitcredentials(7)): git
    runs it for `git config credential.helper keychainkit` and writes the
    request on its standard input. Credentials are stored as
    git-credential-libsecret stores them (org.gnome.keyring.NetworkPassword
    items), so either helper finds the other's. Nothing waits without a
    bound; a locked keyring or no Secret Service ends with a message, and git
    asks the user instead.

    commands:
      get               print the stored credential that matches the request
                        (protocol and host or path needed), unlocked items
                        first, the most recently modified first
      store             store the request's credential as its one item
                        (protocol, host or path, username and password needed)
      erase             remove the matching credentials (with a password given,
                        only those holding it)

    exit codes:
      0                 success (also: nothing matched)
      3                 keychain locked
      4                 no Secret Service
      5                 access denied
      7                 other keychain error
      8                 input/output error
    """

    /// Whether `name` can name an environment variable portably (POSIX's
    /// portable set): letters, digits and `_`, not starting with a digit.
    /// The descriptor number `text` gives to `option`.
    private static func descriptor(_ text: String, for option: String) throws(CLIFailure) -> Int32 {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let fd = Int32(text) else {
            throw CLIFailure(.usage, "\(option) needs a file descriptor number")
        }
        return fd
    }

    static func isEnvironmentName(_ name: Substring) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }

    /// The longest time an option may give: one day, in milliseconds.
    static let longestMilliseconds = 86_400_000

    /// A positive number of milliseconds given to `flag`, at most
    /// ``longestMilliseconds`` (digits only: no sign, no overflow).
    private static func milliseconds(_ text: String, _ flag: String) throws(CLIFailure) -> Duration {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let milliseconds = Int(text), milliseconds > 0, milliseconds <= longestMilliseconds
        else {
            throw CLIFailure(.usage, "\(flag) needs a number of milliseconds from 1 to \(longestMilliseconds) (one day)")
        }
        return .milliseconds(milliseconds)
    }

    /// Parses `arguments` (without the program name).
    init(_ arguments: [String], environmentBackend: String?) throws(CLIFailure) {
        var backendName = environmentBackend
        var service: String?
        var newline = true
        var format: ManyValuesFormat?
        var all = false
        var interval: Duration?
        var positional: [String] = []
        var bindings: [(name: String, account: String)] = []
        var envFiles: [String] = []
        var injectInput: String?
        var injectOutput: String?
        var index = 0

        func value(of flag: String) throws(CLIFailure) -> String {
            index += 1
            guard index < arguments.count else { throw CLIFailure(.usage, "\(flag) needs a value") }
            return arguments[index]
        }

        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--help", "-h": positional = ["help"]; index = arguments.count; continue
            case "--version": positional = ["version"]; index = arguments.count; continue
            case "--backend": backendName = try value(of: argument)
            case "--service", "-s": service = try value(of: argument)
            case "-n", "--no-newline": newline = false
            case "--json": format = .json
            case "-0", "--null": format = .nulSeparated
            case "--all": all = true
            case "--interval": interval = try Self.milliseconds(try value(of: argument), argument)
            case "--timeout": timeout = try Self.milliseconds(try value(of: argument), argument)
            case "--prompt-timeout": promptTimeout = try Self.milliseconds(try value(of: argument), argument)
            case "--require-encryption": transfer = .requireEncrypted
            case "--file": filePath = try value(of: argument)
            case "--cache-master": cacheMaster = true
            case "--env":
                let binding = try value(of: argument)
                guard let equals = binding.firstIndex(of: "="), Self.isEnvironmentName(binding[..<equals]) else {
                    throw CLIFailure(.usage, "--env needs NAME=ACCOUNT, NAME letters, digits and _ not starting with a digit")
                }
                bindings.append((String(binding[..<equals]), String(binding[binding.index(after: equals)...])))
            case "--env-file": envFiles.append(try value(of: argument))
            case "-i", "--in": injectInput = try value(of: argument)
            case "-o", "--out": injectOutput = try value(of: argument)
            case "--master-fd":
                masterDescriptor = try Self.descriptor(try value(of: argument), for: argument)
            case "--password-fd":
                passwordDescriptor = try Self.descriptor(try value(of: argument), for: argument)
            case "--collection":
                collection = try value(of: argument)
                if let reason = SecretServiceKeychainInterface.invalidCollectionReason(collection) {
                    throw CLIFailure(.usage, "--collection: \(reason)")
                }
            case "--prompt":
                let policy = try value(of: argument)
                switch policy {
                case "never": prompts = .never
                case "allowed": prompts = .allowed
                case "automatic": prompts = .automatic
                default: throw CLIFailure(.usage, "unknown --prompt '\(policy)' (never, allowed, automatic)")
                }
            case "--":
                positional += arguments[(index + 1)...]
                index = arguments.count
                continue
            default:
                if argument.hasPrefix("-"), argument.count > 1 {
                    throw CLIFailure(.usage, "unknown option \(argument)")
                }
                positional.append(argument)
            }
            index += 1
        }

        // Not named: where libsecret would keep the secrets (the
        // portal-keyed file inside a Flatpak or Snap sandbox).
        if backendName?.isEmpty ?? true { defaultStore = DefaultStore.current() }
        let backendValue = defaultStore?.rawValue ?? backendName!
        guard let backend = Backend(rawValue: backendValue) else {
            let names = Backend.allCases.map(\.rawValue).joined(separator: ", ")
            throw CLIFailure(.usage, "unknown backend '\(backendValue)' (\(names))")
        }
        guard let name = positional.first else { throw CLIFailure(.usage, "no command given") }
        let operands = Array(positional.dropFirst())

        func account() throws(CLIFailure) -> String {
            guard operands.count == 1 else {
                throw CLIFailure(.usage, operands.isEmpty ? "\(name) needs an ACCOUNT" : "\(name) takes one ACCOUNT")
            }
            return operands[0]
        }

        let command: Command
        switch name {
        case "set": command = .set(account: try account())
        case "get":
            if let format {
                guard all != !operands.isEmpty else {
                    throw CLIFailure(.usage, all ? "get --all takes no ACCOUNT" : "get --json or -0 needs ACCOUNTs or --all")
                }
                command = .getMany(accounts: operands, format: format)
            } else {
                guard !all && operands.count < 2 else {
                    throw CLIFailure(.usage, "get of several accounts needs an output format: --json or -0")
                }
                command = .get(account: try account(), newline: newline)
            }
        case "rm", "remove", "del": command = .remove(account: try account())
        case "ls", "list":
            guard operands.isEmpty else { throw CLIFailure(.usage, "ls takes no operands") }
            command = .list
        case "info":
            guard operands.isEmpty else { throw CLIFailure(.usage, "info takes no operands") }
            command = .info
        case "watch": command = .watch(account: try account(), interval: interval)
        case "run":
            guard !bindings.isEmpty || !envFiles.isEmpty else {
                throw CLIFailure(.usage, "run needs at least one --env NAME=ACCOUNT or --env-file FILE")
            }
            guard !operands.isEmpty else { throw CLIFailure(.usage, "run needs a COMMAND after --") }
            command = .run(envFiles: envFiles, bindings: bindings, command: operands)
        case "inject":
            guard operands.isEmpty else { throw CLIFailure(.usage, "inject takes no operands (-i TEMPLATE, -o FILE)") }
            command = .inject(input: injectInput, output: injectOutput)
        case "unlock", "lock":
            guard operands.count < 2 else { throw CLIFailure(.usage, "\(name) takes at most one COLLECTION") }
            guard backend == .secretService else {
                throw CLIFailure(.usage, "\(name) is for the Secret Service (--backend secret-service)")
            }
            if let collection = operands.first, let reason = SecretServiceKeychainInterface.invalidCollectionReason(collection) {
                throw CLIFailure(.usage, "\(name): \(reason)")
            }
            command = name == "lock" ? .lock(collection: operands.first)
                : .unlock(collection: operands.first, passwordDescriptor: passwordDescriptor)
        case "git-credential":
            guard operands.count == 1 else { throw CLIFailure(.usage, "git-credential takes one operation (get, store, erase)") }
            command = .gitCredential(operation: operands[0])
        case "help": command = .help
        case "version": command = .version
        default: throw CLIFailure(.usage, "unknown command '\(name)'")
        }
        self.command = command
        self.service = service
        self.backend = backend
    }
}
