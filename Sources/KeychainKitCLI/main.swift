import KeychainKit

#if canImport(Glibc)
import Glibc
#endif

/// keychainkit — the command-line tool. See `keychainkit --help`.
signal(SIGPIPE, SIG_IGN)

let environmentBackend = getenv("KEYCHAINKIT_BACKEND").map { String(cString: $0) }
do {
    let invocation = try Invocation(Array(CommandLine.arguments.dropFirst()), environmentBackend: environmentBackend)
    let keychain: any KeychainProtocol = switch invocation.backend {
    case .secretService: Keychain(interface: SecretServiceKeychainInterface(
        collection: invocation.collection, timeout: invocation.timeout,
        prompts: invocation.prompts, promptTimeout: invocation.promptTimeout))
    case .kernel: Keychain(interface: KernelKeyringInterface())
    case .memory: Keychain(interface: InMemoryKeychainInterface())
    }
    let commands = Commands(keychain: keychain, service: invocation.service ?? Invocation.defaultService)
    try commands.run(invocation.command)
    exit(ExitCode.success.rawValue)
} catch {
    StandardStreams.writeError("keychainkit: \(error.message)\n")
    if error.code == .usage { StandardStreams.writeError("try 'keychainkit --help'\n") }
    exit(error.code.rawValue)
}
