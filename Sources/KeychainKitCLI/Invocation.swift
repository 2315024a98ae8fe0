/// A parsed command line.
struct Invocation {

    enum Command {
        case set(account: String)
        case get(account: String, newline: Bool)
        case remove(account: String)
        case list
        case watch(account: String, interval: Duration?)
        case help
        case version
    }

    enum Backend: String, CaseIterable {
        case secretService = "secret-service"
        /// The user's persistent kernel keyring (KernelKeyringInterface).
        case kernel
        case memory
    }

    /// The service used when `--service` is not given.
    static let defaultService = "keychainkit"

    var command: Command
    var service: String?
    var backend: Backend

    static let usage = """
    usage: keychainkit [--backend secret-service|kernel|memory] COMMAND [--service S] ...

    commands:
      set [--service S] ACCOUNT     store the secret read from stdin (prompted
                                    without echo on a terminal; one trailing
                                    newline is dropped); never from arguments
      get [--service S] [-n] ACCOUNT
                                    print the secret and a newline (-n: the
                                    exact bytes, no newline)
      rm [--service S] ACCOUNT      remove the secret (absent is not an error)
      ls [--service S]              list the accounts of the service
      watch [--service S] [--interval MS] ACCOUNT
                                    print a line per change until interrupted,
                                    as the service announces changes; with
                                    --interval, also re-read every MS
                                    milliseconds (for changes no service
                                    announces: another tool's in-place update)
      --help, --version

    The service defaults to "keychainkit"; the backend to $KEYCHAINKIT_BACKEND,
    else secret-service. kernel: the user's persistent kernel keyring, for
    machines with no Secret Service ("user" keys described
    keychainkit:<bytes of service>:<service>:<account>; values of 1 to
    32767 bytes; nothing survives a reboot).

    exit codes: 0 success, 1 not found, 2 bad usage, 3 keychain locked,
                4 no Secret Service (or kernel keyring forbidden),
                5 access denied, 6 canceled, 7 other keychain error,
                8 input/output error
    """

    /// Parses `arguments` (without the program name).
    init(_ arguments: [String], environmentBackend: String?) throws(CLIFailure) {
        var backendName = environmentBackend
        var service: String?
        var newline = true
        var interval: Duration?
        var positional: [String] = []
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
            case "--interval":
                let text = try value(of: argument)
                guard let milliseconds = Int(text), milliseconds > 0 else {
                    throw CLIFailure(.usage, "--interval needs a positive number of milliseconds")
                }
                interval = .milliseconds(milliseconds)
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

        let backendValue = (backendName?.isEmpty ?? true) ? Backend.secretService.rawValue : backendName!
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
        case "get": command = .get(account: try account(), newline: newline)
        case "rm", "remove", "del": command = .remove(account: try account())
        case "ls", "list":
            guard operands.isEmpty else { throw CLIFailure(.usage, "ls takes no operands") }
            command = .list
        case "watch": command = .watch(account: try account(), interval: interval)
        case "help": command = .help
        case "version": command = .version
        default: throw CLIFailure(.usage, "unknown command '\(name)'")
        }
        self.command = command
        self.service = service
        self.backend = backend
    }
}
