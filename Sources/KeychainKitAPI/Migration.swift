// SPDX-License-Identifier: MIT
import KeychainKitCore

/// What ``KeychainProtocol/migrate(service:from:to:)`` did, account by account.
public struct KeychainMigration: Equatable, Sendable {

    /// Copied, read back equal, and removed from the source.
    public var moved: [String] = []

    /// The destination already held the same value: the source's copy was
    /// removed (what a second run after an interrupted one finds).
    public var alreadyThere: [String] = []

    /// The destination holds another value: both were left as they are.
    public var conflicting: [String] = []

    /// Could not be read or written (locked, denied, ...): left in place,
    /// with the error.
    public var failed: [String: KeychainError] = [:]

    /// Whether everything of the source service was moved (or was there).
    public var isComplete: Bool { conflicting.isEmpty && failed.isEmpty }

    /// A migration that did nothing.
    public init() {}
}

extension KeychainProtocol {

    /// Moves every item of `service` in `source` (this keychain when not
    /// given) to `destinationService` (the same name when not given) in this
    /// keychain: to a new service name, or between keychains (from the
    /// kernel keyring or an in-memory one to the Secret Service, say).
    ///
    /// Safe to run at every launch: idempotent, and it never removes an item
    /// before its copy is written and read back equal; after removing it,
    /// it checks the copy again (and writes it again if the two were one
    /// item). An item it cannot read or write stays where it is and is
    /// reported in ``KeychainMigration/failed``; one whose destination
    /// already holds another value is left alone in
    /// ``KeychainMigration/conflicting``. Values are moved as bytes.
    ///
    /// Throws when the source's accounts cannot be listed (nothing moved),
    /// and ``KeychainError/invalidArgument`` for a move of a service onto
    /// itself in one store (``KeychainProtocol/storeIdentity``): two
    /// in-memory keychains of separate stores, or the kernel's session and
    /// persistent keyrings, are different stores. Moving between collections of one
    /// Secret Service is not a migration here: reads look in every
    /// collection, so a copy could not be told from its original.
    @discardableResult
    public func migrate(
        service: String, from source: (any KeychainProtocol)? = nil, to destinationService: String? = nil
    ) throws(KeychainError) -> KeychainMigration {
        let source = source ?? self
        let destinationService = destinationService ?? service
        if destinationService.hasSameUTF8(as: service) && sharesStore(with: source) {
            throw .invalidArgument
        }
        var report = KeychainMigration()
        let accounts = try source.accounts(inService: service)
        // The source's values read together (one batch); each destination
        // is read just before it is written, as fresh as can be.
        var values = try source.data(forAccounts: accounts, inService: service)
        defer {
            for index in values.indices {
                if case var .success(value?) = values[index] { values[index] = .success(nil); value.wipe() }
            }
        }
        for (index, account) in accounts.enumerated() {
            let from = KeychainAttributes(account: account, service: service)
            let to = KeychainAttributes(account: account, service: destinationService)
            do throws(KeychainError) {
                guard let value = try values[index].get() else { continue }  // removed meanwhile
                switch try move(value, from: from, in: source, to: to) {
                case .moved: report.moved.append(account)
                case .alreadyThere: report.alreadyThere.append(account)
                case .conflicting: report.conflicting.append(account)
                }
            } catch {
                report.failed[account] = error
            }
        }
        return report
    }

    /// Moves `value`, read from `from` in `source`, to `to`.
    private func move(
        _ value: [UInt8], from: KeychainAttributes, in source: any KeychainProtocol, to: KeychainAttributes
    ) throws(KeychainError) -> MoveOutcome {
        let outcome: MoveOutcome
        switch try data(forKey: to) {
        case nil:
            try updateData(value, forKey: to)
            guard try data(forKey: to) == value else {
                throw .unknownError(code: -1, message: "the copy did not read back equal; the original was kept")
            }
            outcome = .moved
        case let existing? where existing == value:
            outcome = .alreadyThere
        case .some:
            return .conflicting
        }
        try source.removeValue(forKey: from)
        // The two keys may have been one item (two keychains on one store):
        // the copy must outlive the removal.
        if try data(forKey: to) != value { try updateData(value, forKey: to) }
        return outcome
    }
}

private enum MoveOutcome {
    case moved, alreadyThere, conflicting
}
