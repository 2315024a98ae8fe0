// SPDX-License-Identifier: MIT
import KeychainKitBus
import KeychainKitCore

/// What a search found, checked item by item against what was asked.
///
/// A Secret Service's `SearchItems` is a promise the client cannot take on
/// trust: KeePassXC 2.7.0 matched every entry for a value beginning or
/// ending with `|` (keepassxreboot/keepassxc#7776), and any process that
/// owns `org.freedesktop.secrets` may answer anything. libsecret believes
/// the answer (`secret-tool lookup service app username 'bob|'` returned
/// alice's secret there; `secret-tool clear` deleted every item). Here each
/// item found is read (one `GetAll`) and kept only when its attributes hold
/// every asked value, byte for byte: a secret is returned, overwritten or
/// deleted only for an item verified so. The others are ignored, never
/// deleted, and reported as a server fault in the operation's detail.
package struct VerifiedSearch {

    /// The readable items whose attributes match.
    package var unlocked: [AttributeItem] = []

    /// The matching items in locked collections.
    package var locked: [AttributeItem] = []

    /// Items in locked collections whose attributes the service would not
    /// show, or showed empty: they may be the key's, so they count as
    /// locked, never as absent.
    var unverifiedLocked: [String] = []

    /// Items in locked collections shown with hashed attribute values that
    /// match what was asked (see ``HashedAttributes``): they may be the
    /// key's, so they count as locked, never as absent. Their
    /// ``AttributeItem/attributes`` are the hashed ones the service showed.
    package var hashedLocked: [AttributeItem] = []

    /// How many items the service returned that do not match.
    var ignored = 0

    /// The secret of the one readable item, when asked for along with the
    /// check (``SecretServiceClient/verifiedSearch(_:cap:reading:readingSecretOfOne:)``)
    /// and that item passed it. Whoever takes it wipes it.
    package var secretOfOne: (path: String, value: [UInt8])?

    /// The object paths of every locked item that may match.
    package var lockedPaths: [String] { locked.map(\.id) + withheldLocked }

    /// The object paths of the locked items that may match but whose own
    /// attributes are not known: a listing cannot name what they hold.
    package var withheldLocked: [String] { hashedLocked.map(\.id) + unverifiedLocked }

    /// The paths of the locked items whose own attributes are not known
    /// that may hold `more` attributes beside those searched for: those
    /// whose hashes match, and those shown without attributes.
    package func withheldLocked(mayHolding more: [String: String]) -> [String] {
        guard !hashedLocked.isEmpty else { return unverifiedLocked }  // the usual case: no hash made
        let hashed = HashedAttributes.hashes(of: more)
        return hashedLocked.filter { HashedAttributes.mayHold(more, hashed: hashed, shown: $0.attributes) != false }.map(\.id)
            + unverifiedLocked
    }

    /// What is read of each item found.
    package enum Reading {
        /// Its attributes alone (one `Get` each): what verifying needs.
        /// Labels are empty and times 0; ``AttributeItem/isLocked`` is
        /// whether the service listed it as locked.
        case attributes
        /// Everything the service says of it (one `GetAll` each).
        case everything
    }

    /// The most items one search for a key may return; more is a server
    /// fault, reported at once rather than read one by one. Listings (of a
    /// service, or by attributes) have no such cap.
    package static let keyedCap = 256
}

extension SecretServiceClient {

    /// Searches every collection for items whose attributes include
    /// `wanted`, and verifies each item found (see ``VerifiedSearch``),
    /// reading of each what `reading` says.
    ///
    /// Throws a server fault when the service answers with an object path
    /// outside `/org/freedesktop/secrets` or, with `cap`, with more items
    /// than `cap`.
    ///
    /// `readingSecretOfOne`: when the search finds one readable item and
    /// nothing locked, on a service that asks no one before it gives a
    /// secret (gnome-keyring and those that serve its interface; KeePassXC
    /// may ask its user to confirm each item read), its secret is asked for
    /// along with its attributes (one round trip less) and kept only if
    /// the item passes the check (``VerifiedSearch/secretOfOne``).
    package func verifiedSearch(
        _ wanted: [String: String], cap: Int?, reading: VerifiedSearch.Reading = .everything, readingSecretOfOne: Bool = false
    ) throws(SecretServiceFailure) -> VerifiedSearch {
        let listed = try searchItems(Self.searchPairs(wanted))
        if let cap, listed.unlocked.count + listed.locked.count > cap {
            throw SecretServiceFailure.serverFault(
                "answered one search with \(listed.unlocked.count + listed.locked.count) items, more than the \(cap) a search may return")
        }
        var secretCall: (path: String, call: PendingCall)?
        if readingSecretOfOne, serverIsGnomeKeyring == true, listed.unlocked.count == 1, listed.locked.isEmpty,
           (try? SecretServiceNames.requireServiceObjects(listed.unlocked)) != nil,
           let call = try? bus.send(call: try secretRequest(at: listed.unlocked[0]).message) {
            secretCall = (listed.unlocked[0], call)
        }
        var found = try verify(listed, against: wanted, isListing: cap == nil, reading: reading)
        if let (path, call) = secretCall, found.unlocked.map(\.id) == [path],
           case let .success(reply)? = try? bus.reply(to: call),
           let value = try? secret(from: ServiceMessage(reply), at: path) {
            found.secretOfOne = (path, value)
        }
        return found
    }

    /// The attribute pairs of a search for `wanted`, in one order (by
    /// their names' UTF-8 bytes) whatever the dictionary's.
    package static func searchPairs(_ wanted: [String: String]) -> [(key: String, value: String)] {
        wanted.sorted { $0.key.precedesByUTF8($1.key) }
    }

    /// Verifies each item a search `listed` (see ``VerifiedSearch``)
    /// against `wanted`, the attributes every item found must hold,
    /// reading of each what `reading` says. A listing's operation gets
    /// more time for each item; a keyed search's keeps its own.
    package func verify(
        _ listed: (unlocked: [String], locked: [String]), against wanted: [String: String], isListing: Bool,
        reading: VerifiedSearch.Reading
    ) throws(SecretServiceFailure) -> VerifiedSearch {
        let (unlocked, locked) = listed
        try SecretServiceNames.requireServiceObjects(unlocked + locked)
        if isListing {
            // A listing: each item found costs a call; its time grows with them.
            let (more, overflow) = (bus.timeoutMicroseconds / 1000).multipliedReportingOverflow(by: UInt64(unlocked.count + locked.count))
            bus.extendOperation(by: overflow ? .max : more)
        }
        var found = VerifiedSearch()
        // Every item's call sent at once: a search's cost no longer grows
        // by a round trip per item.
        let paths = unlocked + locked
        let items = switch reading {
        case .everything: try items(at: paths)
        case .attributes:
            try zip(paths.indices, itemAttributes(at: paths)).map { index, attributes in
                attributes.map { found in
                    found.map { attributes in
                        AttributeItem(
                            id: paths[index], attributes: attributes, label: "", created: 0, modified: 0,
                            isLocked: index >= unlocked.count)
                    }
                }
            }
        }
        for (index, item) in items.enumerated() {
            let isLocked = index >= unlocked.count
            let described: AttributeItem?
            do throws(SecretServiceFailure) {
                described = try item.get()
            } catch let failure where isLocked && failure.error == .interactionNotAllowed {
                found.unverifiedLocked.append(locked[index - unlocked.count])
                continue
            }
            guard let described else { continue }  // deleted meanwhile
            if !described.includes(wanted) {
                guard isLocked, described.attributes.isEmpty || HashedAttributes.areHashed(described.attributes) else {
                    found.ignored += 1
                    continue
                }
                // Withheld: shown empty or hashed (a keyring loaded locked).
                switch described.attributes.isEmpty ? nil : HashedAttributes.mayHold(wanted, shown: described.attributes) {
                case true?: found.hashedLocked.append(described)
                case false?: found.ignored += 1
                case nil: found.unverifiedLocked.append(described.id)
                }
            } else if isLocked {
                found.locked.append(described)
            } else {
                found.unlocked.append(described)
            }
        }
        if found.ignored > 0 {
            matchesLoosely = true
            note("the Secret Service answered a search with \(found.ignored) item(s) of other attributes than asked "
                + "(a server fault: it matches loosely); they were ignored, neither read, changed nor deleted")
        }
        return found
    }
}
