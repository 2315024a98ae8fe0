import KeychainKit

#if canImport(Glibc)
import Glibc
#endif

/// keychainkit — the command-line tool. See `keychainkit --help`.
signal(SIGPIPE, SIG_IGN)

/// Run as git-credential-keychainkit (a link to this program, which git runs
/// for `credential.helper keychainkit`), it is `keychainkit git-credential`.
let program = CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "") } ?? ""
let gitHelperName = "git-credential-keychainkit"
let arguments = (program == gitHelperName ? ["git-credential"] : []) + CommandLine.arguments.dropFirst()
let name = program == gitHelperName ? gitHelperName : "keychainkit"

let environmentBackend = getenv("KEYCHAINKIT_BACKEND").map { String(cString: $0) }
do {
    let invocation = try Invocation(arguments, environmentBackend: program == gitHelperName ? nil : environmentBackend)
    var secretService: SecretServiceKeychainInterface?
    let keychain: any KeychainProtocol
    switch invocation.backend {
    case .secretService:
        let backend = SecretServiceKeychainInterface(
            collection: invocation.collection, timeout: invocation.timeout,
            prompts: invocation.prompts, promptTimeout: invocation.promptTimeout)
        secretService = backend
        keychain = Keychain(interface: backend)
    case .kernel: keychain = Keychain(interface: KernelKeyringInterface())
    case .memory: keychain = Keychain(interface: InMemoryKeychainInterface())
    }
    let commands = Commands(
        keychain: keychain, service: invocation.service ?? Invocation.defaultService, secretService: secretService)
    try commands.run(invocation.command)
    exit(ExitCode.success.rawValue)
} catch {
    StandardStreams.writeError("\(name): \(error.message)\n")
    if error.code == .usage { StandardStreams.writeError("try 'keychainkit --help'\n") }
    exit(error.code.rawValue)
}
