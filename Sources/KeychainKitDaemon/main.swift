// SPDX-License-Identifier: MIT
// keychainkitd: see DaemonOptions.usage and keychainkitd(1).
import CKeychainKitSupport
import KeychainKitBus
import KeychainKitFileStore
import KeychainKitSecretService
import KeychainKitSystem
#if canImport(Glibc)
import Glibc
#endif

/// Writes `text` and a newline to standard error.
func complain(_ text: String) {
    let line = "keychainkitd: \(text)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

/// The descriptor SIGTERM, SIGINT and the loss of the name write to: the
/// serving loop ends when it is readable.
nonisolated(unsafe) var stopPipe: [Int32] = [-1, -1]

func run() -> Int32 {
    let options: DaemonOptions
    // Repaired arguments (U+FFFD) would name another directory: refused.
    let argv = UnsafeBufferPointer(start: CommandLine.unsafeArgv, count: Int(CommandLine.argc))
    if let bad = firstArgumentNotUTF8(in: argv[1...]) {
        complain("argument \(bad) is not valid UTF-8\n\(DaemonOptions.usage)")
        return 2
    }
    do throws(DaemonOptions.UsageError) {
        switch try DaemonOptions.parse(Array(CommandLine.arguments.dropFirst())) {
        case let .run(parsed): options = parsed
        case .help:
            print(DaemonOptions.usage)
            return 0
        case .version:
            print("keychainkitd \(String(cString: kk_version_string()))")
            return 0
        }
    } catch {
        complain("\(error.message)\n\(DaemonOptions.usage)")
        return 2
    }
    // No core dumps of a process holding secrets, no ptrace by others, and
    // no secret in swap where the system lets us lock memory.
    _ = keychainkit_forbid_core_dumps(1)
    if let unlocked = MemoryLock.lockAll() { complain(unlocked) }
    umask(0o077)
    guard makeDirectories(options.dataDirectory) else {
        complain("cannot create \(options.dataDirectory): \(String(cString: strerror(errno)))")
        return 4
    }

    let loginPath = "\(options.dataDirectory)/\(SecretServer.loginCollection).keyring"
    var master: [UInt8]?
    defer { master?.wipe() }
    let source: FileKeychainMaster = options.masterFD.map { .fileDescriptor($0) } ?? .automatic
    switch source.bytes(for: loginPath) {
    case let .success(bytes): master = bytes
    case .failure(.noMasterKey) where options.masterFD == nil: master = nil
    case let .failure(error):
        complain("no password for the login collection: \(FileKeychainInterface.openFailureDetail ?? error.description)")
        return 4
    }

    guard pipe(&stopPipe) == 0 else { return 4 }
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in
        var byte: UInt8 = 1
        _ = write(stopPipe[1], &byte, 1)
    }
    sigaction(SIGTERM, &action, nil)
    sigaction(SIGINT, &action, nil)
    signal(SIGPIPE, SIG_IGN)

    let bus: BusConnection
    do throws(BusFailure) {
        bus = try BusConnection.open(address: nil, timeoutMicroseconds: 25_000_000, subscribing: [], to: NoSignals())
    } catch {
        complain("no session bus: \(error.message)")
        return 3
    }
    let server: SecretServer
    do throws(ServiceError) {
        server = try SecretServer(
            bus: bus, dataDirectory: options.dataDirectory, master: master,
            promptTimeout: UInt64(options.promptTimeout) * 1_000_000)
    } catch {
        complain(error.message)
        return 4
    }
    if master != nil && server.collections[SecretServer.loginCollection]!.isLocked {
        complain("the password opens none of \(loginPath)'s items")
        return 4
    }
    do throws(BusFailure) {
        try server.start {
            var byte: UInt8 = 2
            _ = write(stopPipe[1], &byte, 1)
        }
        let name = SecretServiceNames.busName
        if try bus.requestName(name, replacing: options.replace) == .taken {
            let pid = (try? bus.processID(of: name)).map { " (process \($0))" } ?? ""
            complain("another service owns \(name)\(pid): stop it, or run keychainkitd --replace")
            return 1
        }
        let watch = DirectoryWatch(options.dataDirectory)
        try bus.serve(until: stopPipe[0], watching: watch.fd, onWatched: {
            if watch.drain() { server.filesChanged() }
        }, due: server.due)
    } catch where [ECONNRESET, ENOTCONN, EPIPE].contains(error.code) {
        return 0  // the session bus ended (a logout): so does the service
    } catch {
        complain("the bus failed: \(error.message) (\(error.operation))")
        return 3
    }
    return 0
}

/// `mkdir -p` with mode 0700 for what it creates.
func makeDirectories(_ path: String) -> Bool {
    var prefix = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
        prefix += "/" + part
        if mkdir(prefix, 0o700) != 0 && errno != EEXIST { return false }
    }
    return true
}

/// The daemon subscribes to its signals through registrations instead.
final class NoSignals: BusSignalReceiver {
    func receive(_ signal: ReceivedSignal) {}
}

exit(run())
