// SPDX-License-Identifier: MIT
import KeychainKitCore
import KeychainKitSecretService

extension SecretServiceKeychainInterface {

    /// Reads many keys of one service in a few exchanges, not a search and
    /// a `GetSecret` each. Keys whose items this connection knows (see
    /// ``cachedReads(_:inService:on:)``) cost one `GetSecrets` together;
    /// the others one `SearchItems` for the service (and, when it holds
    /// many more items than asked for, one for each account, sent
    /// together), every item's attributes asked for together
    /// (``VerifiedSearch``), then one `GetSecrets` for the chosen items.
    ///
    /// Each account gets what ``readItem(_:)`` would give it: the newest
    /// readable item's value; `nil` when the service has no item of it
    /// and no locked collection could hide one; else
    /// ``KeychainError/interactionNotAllowed``. With ``prompts``
    /// ``PromptPolicy/allowed``, locked items are first offered to the
    /// user to unlock, in one prompt, once. The cost grows with the
    /// request, not the service (see ``itemsOf(_:_:inService:on:)``).
    public func readItems(
        accounts: [String], inService service: String
    ) throws(KeychainError) -> [Result<[UInt8]?, KeychainError>] {
        guard !accounts.isEmpty else { return [] }
        var offeredUnlock = false
        return try withConnection { connection throws(SecretServiceFailure) in
            let known = try cachedReads(accounts, inService: service, on: connection)
            let rest = accounts.filter { known[Array($0.utf8)] == nil }
            var searched = try searchedReads(rest, inService: service, offeredUnlock: &offeredUnlock, on: connection)
                .makeIterator()
            return accounts.map { account in
                if let value = known[Array(account.utf8)] { return .success(value) }
                return searched.next() ?? .failure(.unknownError(code: -1, message: "a search answered fewer keys than asked"))
            }
        }
    }

    /// The values of those of `accounts` whose items the cache knows, as
    /// ``readItem(_:)`` reads a known key: the known items' secrets in one
    /// `GetSecrets`, each kept when no change announced meanwhile moved
    /// its key; known absences confirmed by one round trip to the bus
    /// daemon. The others are left out.
    private func cachedReads(
        _ accounts: [String], inService service: String, on connection: KeyedConnection
    ) throws(SecretServiceFailure) -> [[UInt8]: [UInt8]?] {
        var paths: [[UInt8]: (key: KeychainAttributes, path: String)] = [:]
        var absent: [[UInt8]: KeychainAttributes] = [:]
        for account in accounts {
            let key = KeychainAttributes(account: account, service: service)
            switch try entry(for: key, on: connection) {
            case let .item(path)?: paths[Array(account.utf8)] = (key, path)
            case .absent?: absent[Array(account.utf8)] = key
            case nil: break
            }
        }
        var known: [[UInt8]: [UInt8]?] = [:]
        if !paths.isEmpty {
            let secrets = try connection.client.secrets(at: Array(Set(paths.values.map(\.path))))
            try connection.catchUp()
            for (account, item) in paths {
                guard case var .success(value)? = secrets[item.path] else { continue }  // searched for instead
                if try entry(for: item.key, on: connection) == .item(path: item.path) {
                    known[account] = value
                } else {
                    value.wipe()
                }
            }
        }
        if !absent.isEmpty {
            try connection.synchronize()
            for (account, key) in absent where try entry(for: key, on: connection) == .absent { known[account] = .some(nil) }
        }
        return known
    }

    /// What ``readItems(accounts:inService:)`` gives `accounts`, found by
    /// searching (see ``itemsOf(_:_:inService:on:)``).
    private func searchedReads(
        _ accounts: [String], inService service: String, offeredUnlock: inout Bool, on connection: KeyedConnection
    ) throws(SecretServiceFailure) -> [Result<[UInt8]?, KeychainError>] {
        guard !accounts.isEmpty else { return [] }
        try requireNoHiddenCollections(on: connection)
        let wanted = Set(accounts.map { Array($0.utf8) })
        let found = try connection.client.verify(
            try itemsOf(wanted.count, accounts, inService: service, on: connection.client),
            against: [Names.Attribute.service: service], isListing: true, reading: .attributes)
        var unlocked: [[UInt8]: [AttributeItem]] = [:]
        var locked: [[UInt8]: [String]] = [:]
        func account(of item: AttributeItem) -> [UInt8]? {
            item.attributes[Names.Attribute.account].map { Array($0.utf8) }.flatMap { wanted.contains($0) ? $0 : nil }
        }
        for item in found.unlocked { if let account = account(of: item) { unlocked[account, default: []].append(item) } }
        for item in found.locked { if let account = account(of: item) { locked[account, default: []].append(item.id) } }
        // A key found nowhere is absent only if no collection hides it;
        // the keys found are read whatever the others hide.
        let hidden = wanted.contains(where: { unlocked[$0] == nil && locked[$0] == nil })
            ? try connection.freshHiddenCollections() : []
        // Withheld items (hashed, or without attributes) that may hold
        // each asked account, found once: the prompt kk_get of each
        // would show, and the entry's failure below.
        var withheldOf: [String: [String]] = [:]
        var withheld: [String] = []
        var seen = Set<String>()
        for account in accounts where withheldOf[account] == nil {
            let paths = found.withheldLocked(mayHolding: [Names.Attribute.account: account])
            withheldOf[account] = paths
            for path in paths where seen.insert(path).inserted { withheld.append(path) }
        }
        let lockedPaths = locked.values.flatMap { $0 } + withheld + hidden
        if !lockedPaths.isEmpty && prompts == .allowed && !offeredUnlock {
            offeredUnlock = true
            throw SecretServiceFailure.locked(lockedPaths, "the item is")
        }
        /// Why an account with no readable item is not absent: its
        /// items are locked, a locked item's attributes were withheld
        /// (or shown hashed, alike for this account's), or a locked
        /// collection hides its items.
        func unreadable(_ account: String) -> SecretServiceFailure? {
            if let paths = locked[Array(account.utf8)] { return .locked(paths, "the item is") }
            if let withheld = withheldOf[account], !withheld.isEmpty { return .locked(withheld, "the item is") }
            if !hidden.isEmpty { return .locked(hidden, "a collection that hides its items is") }
            return nil
        }
        var chosen: [[UInt8]: String] = [:]
        for (account, items) in unlocked { chosen[account] = try newest(items, on: connection)?.id }
        let secrets = try connection.client.secrets(at: Array(chosen.values))
        var toldLocked = false
        return accounts.map { account in
            let bytes = Array(account.utf8)
            let key = KeychainAttributes(account: account, service: service)
            if let path = chosen[bytes], let secret = secrets[path] {
                if locked[bytes] == nil && unlocked[bytes]?.count == 1 {
                    connection.cache.store(key, chosen: path, all: [path])
                }
                switch secret {
                case let .success(value): return .success(value)
                case let .failure(failure) where failure.error == .itemNotFound: return .success(nil)  // deleted meanwhile
                case let .failure(failure): return .failure(failure.error)
                }
            }
            if let failure = unreadable(account) {
                if !toldLocked, let detail = failure.detail {
                    // The first locked entry's, as kk_get of it would say.
                    connection.client.note(detail)
                    toldLocked = true
                }
                return .failure(failure.error)
            }
            connection.cache.store(key, chosen: nil, all: [])
            return .success(nil)
        }
    }

    /// The items of `service` that may be those of `accounts` (`distinct`
    /// of them), unverified: the service's search when it lists at most
    /// twice as many items as asked for, else one search for each account,
    /// sent together. Each item found costs one call to verify, and a
    /// search for one key about as much (gnome-keyring 42: 0.3 ms each,
    /// pipelined), so 100 accounts of a service of 1,000 items cost about
    /// 200 calls, not 1,000.
    private func itemsOf(
        _ distinct: Int, _ accounts: [String], inService service: String, on client: SecretServiceClient
    ) throws(SecretServiceFailure) -> (unlocked: [String], locked: [String]) {
        let all = try client.searchItems([(key: Names.Attribute.service, value: service)])
        guard all.unlocked.count + all.locked.count > 2 * distinct else { return all }
        var searched = Set<[UInt8]>()
        let searches = accounts.filter { searched.insert(Array($0.utf8)).inserted }.map { account in
            SecretServiceClient.searchPairs([Names.Attribute.service: service, Names.Attribute.account: account])
        }
        return try client.searchItems(each: searches)
    }

    private typealias Names = SecretServiceNames
}
