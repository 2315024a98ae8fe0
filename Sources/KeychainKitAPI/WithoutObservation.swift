// SPDX-License-Identifier: MIT
#if KEYCHAINKIT_WITHOUT_OBSERVATION
/// What ``Keychain`` tells Swift's Observation, told to nobody: the
/// Makefile builds the C library and the tool with
/// `-DKEYCHAINKIT_WITHOUT_OBSERVATION`. None of them gives a `Keychain` to
/// Swift code that could observe it (C callers and the tool hear changes
/// through ``Keychain/addObserver(forKey:_:)``), and Swift's Observation
/// library would link Swift's concurrency runtime and libdispatch into each,
/// which every process pays to load and start. A Swift package gets the
/// observable ``Keychain`` of `import KeychainKit`.
///
/// The key paths are autoclosures, never formed: a key path into a generic
/// class costs the runtime thousands of instructions.
struct WithoutObservation: Sendable {
    func access<Subject, Member>(_ subject: Subject, keyPath: @autoclosure () -> KeyPath<Subject, Member>) {}
    func willSet<Subject, Member>(_ subject: Subject, keyPath: @autoclosure () -> KeyPath<Subject, Member>) {}
    func didSet<Subject, Member>(_ subject: Subject, keyPath: @autoclosure () -> KeyPath<Subject, Member>) {}
}
#endif
