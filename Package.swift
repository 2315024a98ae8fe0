// swift-tools-version:6.0
// SPDX-License-Identifier: MIT
// KeychainKit is MIT-licensed: see LICENSE. Copyright (c) 2026 The KeychainKit authors.
import Foundation  // the manifest's only: reads the header below
import PackageDescription

/// The ABI major version, `KK_VERSION_MAJOR` of include/keychainkit.h (the
/// one source of the version): the soname is libkeychainkit.so.<abiMajor>.
let abiMajor: String = {
    let header = "\(Context.packageDirectory)/include/keychainkit.h"
    let text = (try? String(contentsOfFile: header, encoding: .utf8)) ?? ""
    let prefix = "#define KK_VERSION_MAJOR "
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }),
          let major = Int(line.dropFirst(prefix.count)) else {
        fatalError("\(header): no \(prefix)<number>")
    }
    return String(major)
}()

let package = Package(
    name: "KeychainKit",
    products: [
        .library(name: "KeychainKit", targets: ["KeychainKit"]),
        // libkeychainkit.so: the C ABI of include/keychainkit.h.
        .library(name: "keychainkit", type: .dynamic, targets: ["KeychainKitC"]),
        .executable(name: "keychainkit-cli", targets: ["KeychainKitCLI"]),
        // keychainkitd: a Secret Service of our own, on the file store.
        .executable(name: "keychainkitd", targets: ["KeychainKitDaemon"]),
        // The fuzzers' entries into what parses hostile bytes (IntegrationTests/fuzz);
        // not installed.
        .library(name: "keychainkit-fuzz-targets", type: .dynamic, targets: ["KeychainKitFuzzTargets"]),
        // Codable values stored as JSON: the one product that uses Foundation.
        .library(name: "KeychainKitCodable", targets: ["KeychainKitCodable"]),
    ],
    targets: [
        // sd-bus, libsystemd's D-Bus client: the Secret Service transport.
        .systemLibrary(
            name: "CSDBus",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // The encrypted transfer session's cryptography, on libgcrypt.
        .target(
            name: "CKeychainKitCrypto",
            linkerSettings: [.linkedLibrary("gcrypt")]
        ),
        // The kernel keyring's system calls (add_key, keyctl), callable from
        // Swift; no libkeyutils.
        .target(
            name: "CKeychainKitKernel"
        ),
        // Memory for secrets (out of core dumps, locked where allowed), the
        // stack's burning, new files closed on exec: C with no other part.
        .target(
            name: "CKeychainKitMemory"
        ),
        // What every layer stands on: the monotonic clock's deadlines, open
        // files' identities, locks, secret bytes and their wiping, secret
        // memory, the AES key. No Foundation.
        .target(
            name: "KeychainKitSystem",
            dependencies: ["CKeychainKitCrypto", "CKeychainKitMemory"]
        ),
        // The bus: sd-bus connections, messages, pipelined calls, signals
        // and their senders, the names of D-Bus itself, BusFailure. Knows
        // nothing of the Secret Service: a server can stand on it too.
        .target(
            name: "KeychainKitBus",
            dependencies: ["CSDBus", "KeychainKitSystem"]
        ),
        // The contract every backend keeps: errors, the interface protocol,
        // changes and their observation, items and their schemas, and the
        // in-memory backend.
        .target(
            name: "KeychainKitCore",
            dependencies: ["KeychainKitSystem"]
        ),
        // The Secret Service protocol on the bus: its names, the secret
        // struct, the transfer session, prompts and the client's calls,
        // which read items as the core describes them. Knows no backend:
        // keychainkitd speaks it too.
        .target(
            name: "KeychainKitSecretService",
            dependencies: ["KeychainKitCore", "KeychainKitBus", "KeychainKitSystem", "CKeychainKitCrypto"]
        ),
        // The backends, one module each, on the core.
        // The Secret Service's client backend, on the protocol.
        .target(
            name: "KeychainKitSecretServiceBackend",
            dependencies: ["KeychainKitCore", "KeychainKitSecretService", "KeychainKitBus", "KeychainKitSystem"]
        ),
        // The kernel keyring (keyctl), in the session or user keyring.
        .target(
            name: "KeychainKitKernelKeyring",
            dependencies: ["KeychainKitCore", "KeychainKitSystem", "CKeychainKitKernel"]
        ),
        // The encrypted keyring file (libsecret's and oo7's format), its
        // masters (one cached in the kernel keyring), and the Secret portal
        // that gives a sandbox its master.
        .target(
            name: "KeychainKitFileStore",
            dependencies: ["KeychainKitCore", "KeychainKitKernelKeyring", "KeychainKitBus", "KeychainKitSystem", "CKeychainKitCrypto"]
        ),
        // The Swift API, blocking: Keychain, the default store, migration,
        // typed keys, server logins; re-exports the core and the backends.
        // No Foundation, and no Swift concurrency: the C library and the tool
        // stand on it without the concurrency runtime and libdispatch, which
        // cost every process about 0.17 ms to load and start.
        .target(
            name: "KeychainKitAPI",
            dependencies: ["KeychainKitCore", "KeychainKitSecretService", "KeychainKitSecretServiceBackend", "KeychainKitFileStore", "KeychainKitKernelKeyring", "KeychainKitBus", "KeychainKitSystem"]
        ),
        // `import KeychainKit`: KeychainKitAPI re-exported, with the `async`
        // forms of its operations.
        .target(
            name: "KeychainKit",
            dependencies: ["KeychainKitAPI"]
        ),
        // C parts of the C ABI: status strings, the thread-local error
        // message, kk_secret_free, the version.
        .target(
            name: "CKeychainKitSupport",
            dependencies: ["CKeychainKitMemory"]
        ),
        // The one mapping of the core's errors to kk_status, and
        // kk_status_string: shared by the C exports and the tool's exit codes.
        .target(
            name: "KeychainKitStatus",
            dependencies: ["KeychainKitCore", "CKeychainKitSupport"]
        ),
        // The @c exports of the C ABI: argument checks over the core,
        // nothing more.
        .target(
            name: "KeychainKitC",
            dependencies: ["KeychainKitAPI", "KeychainKitStatus", "CKeychainKitSupport", "CKeychainKitMemory"],
            exclude: ["exports.map"],
            linkerSettings: [
                .unsafeFlags([
                    "-Xlinker", "-soname=libkeychainkit.so.\(abiMajor)",
                    "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/KeychainKitC/exports.map",
                ]),
            ]
        ),
        // KeychainKey(json:) for Codable values; Foundation's JSON coders.
        .target(
            name: "KeychainKitCodable",
            dependencies: ["KeychainKit"]
        ),
        // The helpers' protocols, as bytes come from git and Docker: git's
        // credential lines, docker-credential-helpers' JSON. No keychain:
        // the CLI and the fuzzers use them.
        .target(
            name: "KeychainKitHelperProtocols",
            dependencies: ["KeychainKitSystem"]
        ),
        // The fuzzers' entry points (kk_fuzz_git_credential, ...), called by
        // IntegrationTests/fuzz/kk_fuzz_protocols.c.
        // (kk_fuzz_bus_replies runs the Secret Service backend against a
        // scripted peer written with sd-bus itself.)
        .target(
            name: "KeychainKitFuzzTargets",
            dependencies: ["KeychainKitHelperProtocols", "KeychainKitSecretServiceBackend", "KeychainKitCore", "KeychainKitSystem", "CSDBus"]
        ),
        // The `keychainkit` command-line tool (built as keychainkit-cli, installed as keychainkit).
        .executableTarget(
            name: "KeychainKitCLI",
            dependencies: ["KeychainKitAPI", "KeychainKitHelperProtocols", "KeychainKitSystem", "KeychainKitStatus", "CKeychainKitSupport"]
        ),
        // keychainkitd: the Secret Service's server side on the bus layer,
        // its collections kept by the file store.
        .executableTarget(
            name: "KeychainKitDaemon",
            dependencies: ["KeychainKitFileStore", "KeychainKitCore", "KeychainKitSecretService", "KeychainKitBus", "KeychainKitSystem", "KeychainKitStatus", "CKeychainKitCrypto", "CKeychainKitSupport"]
        ),
        // GIO, for the tests' own administration of the private keyring
        // (the library does not use it).
        .systemLibrary(
            name: "CGIO",
            path: "Tests/CGIO",
            pkgConfig: "gio-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),
        // The Swift tests. Every other suite (the C ABI's, the CLI's, the
        // git helper's, ...) is in IntegrationTests/, run by `make test-*`.
        .testTarget(
            name: "KeychainKitTests",
            dependencies: ["KeychainKit", "KeychainKitSecretService", "KeychainKitSecretServiceBackend", "KeychainKitBus", "KeychainKitSystem", "CGIO"]
        ),
        .testTarget(
            name: "KeychainKitCodableTests",
            dependencies: ["KeychainKit", "KeychainKitCodable"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
