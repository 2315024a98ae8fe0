// SPDX-License-Identifier: MIT
import KeychainKit
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Items addressed by arbitrary attributes (git's credentials, libsecret's
/// network passwords): found with their attributes and label, read,
/// replaced, updated and deleted; locked never absent.
@Suite("Secret Service: items by attributes")
struct SecretServiceAttributeItemTests {

    private func attributes(_ server: String, user: String) -> [String: String] {
        ["protocol": "https", "server": server, "user": user]
    }

    @Test func createdItemsAreFoundWithTheirAttributesAndLabel() throws {
        try requirePrivateKeyring()
        let store = SecretServiceKeychainInterface()
        let server = uniqueService()
        let created = try store.createItem(
            attributes: attributes(server, user: "alice").merging(["xdg:schema": "org.example.Test"]) { $1 },
            label: "Test: \(server)", value: Array("alice's".utf8))
        let found = try store.items(matching: ["server": server])
        #expect(found.map(\.id) == [created])
        let item = try #require(found.first)
        #expect(item.label == "Test: \(server)")
        #expect(item.attributes["user"] == "alice" && item.attributes["xdg:schema"] == "org.example.Test")
        #expect(!item.isLocked && item.modified > 0)
        #expect(try store.secret(of: item) == Array("alice's".utf8))
        #expect(try store.items(matching: ["server": server, "user": "bob"]).isEmpty)
        try store.delete(item)
        #expect(try store.items(matching: ["server": server]).isEmpty)
        #expect(try store.secret(of: item) == nil, "a deleted item's secret is nil, not an error")
        try store.delete(item)  // deleted meanwhile: no error
    }

    @Test func createReplacesTheItemOfTheSameAttributes() throws {
        try requirePrivateKeyring()
        let store = SecretServiceKeychainInterface()
        let server = uniqueService()
        try store.createItem(attributes: attributes(server, user: "alice"), label: "first", value: Array("1".utf8))
        try store.createItem(attributes: attributes(server, user: "alice"), label: "second", value: Array("2".utf8))
        try store.createItem(attributes: attributes(server, user: "bob"), label: "bob", value: Array("b".utf8))
        let alice = try store.items(matching: attributes(server, user: "alice"))
        #expect(alice.count == 1)
        #expect(try alice.first.flatMap { try store.secret(of: $0) } == Array("2".utf8))
        #expect(try store.items(matching: ["server": server]).count == 2)
        for item in try store.items(matching: ["server": server]) { try store.delete(item) }
    }

    @Test func setSecretUpdatesInPlaceAndItemsComeNewestFirst() throws {
        try requirePrivateKeyring()
        let store = SecretServiceKeychainInterface()
        let server = uniqueService()
        try store.createItem(attributes: attributes(server, user: "older"), label: "older", value: [1])
        try store.createItem(attributes: attributes(server, user: "newer"), label: "newer", value: [2])
        // Same second: the later created comes first (by path).
        #expect(try store.items(matching: ["server": server]).map(\.label) == ["newer", "older"])
        let older = try #require(try store.items(matching: attributes(server, user: "older")).first)
        waitForTheNextSecond()
        try store.setSecret([3], of: older)
        let found = try store.items(matching: ["server": server])
        #expect(found.map(\.label) == ["older", "newer"], "modified last: first")
        #expect(found.first?.id == older.id, "updated in place")
        #expect(try store.secret(of: older) == [3])
        for item in found { try store.delete(item) }
        #expect(throws: KeychainError.itemNotFound) { try store.setSecret([4], of: older) }
    }

    @Test func badAttributesAreInvalidArguments() throws {
        let store = SecretServiceKeychainInterface(busAddress: "unix:path=/nonexistent")
        #expect(throws: KeychainError.invalidArgument) { try store.items(matching: ["": "x"]) }
        #expect(throws: KeychainError.invalidArgument) { try store.items(matching: ["a": "x\0y"]) }
        #expect(throws: KeychainError.invalidArgument) {
            try store.createItem(attributes: ["a\0": "x"], label: "l", value: [1])
        }
        #expect(throws: KeychainError.invalidArgument) {
            try store.createItem(attributes: ["a": "x"], label: "l\0", value: [1])
        }
        #expect(throws: KeychainError.serviceUnavailable) { try store.items(matching: ["a": "x"]) }
    }

    @Test func lockedItemsAreFoundButTheirSecretsNeedAnUnlock() throws {
        try requirePrivateKeyring()
        let admin = try SecretServiceAdmin()
        let password = "lockable-\(UInt32.random(in: 0...UInt32.max))"
        let collection = try admin.createCollection(label: "kktest-attr-lockable", password: password)
        defer { try? admin.deleteCollection(collection) }
        let store = SecretServiceKeychainInterface(collection: collection, prompts: .never)
        let server = uniqueService()
        try store.createItem(attributes: attributes(server, user: "alice"), label: "locked", value: [7])

        try admin.lock(collection)
        let item = try #require(try store.items(matching: ["server": server]).first)
        #expect(item.isLocked, "a locked item is listed, marked locked")
        #expect(throws: KeychainError.interactionNotAllowed) { try store.secret(of: item) }
        #expect(throws: KeychainError.interactionNotAllowed) { try store.setSecret([8], of: item) }
        #expect(throws: KeychainError.interactionNotAllowed) {
            try store.createItem(attributes: attributes(server, user: "bob"), label: "new", value: [9])
        }
        #expect(store.failureDetail(for: .interactionNotAllowed)?.contains("locked") == true)

        let lockedOne = try store.itemsReadingSecretOfOne(matching: ["server": server])
        #expect(lockedOne.items.map(\.isLocked) == [true] && lockedOne.secretOfOne == nil, "no secret is read of a locked item")

        try admin.unlock(collection, password: password)
        #expect(try store.secret(of: item) == [7])
    }

    /// The secret read along with a search is the one match's, and only
    /// when there is exactly one (on gnome-keyring, which asks no one
    /// before it gives a secret); the items are what `items(matching:)`
    /// lists.
    @Test func theOneMatchsSecretIsReadAlongWithTheSearch() throws {
        try requirePrivateKeyring()
        let store = SecretServiceKeychainInterface()
        let server = uniqueService()
        #expect(try store.itemsReadingSecretOfOne(matching: ["server": server]).items.isEmpty)
        let alice = try store.createItem(attributes: attributes(server, user: "alice"), label: "a", value: Array("alice's".utf8))
        let one = try store.itemsReadingSecretOfOne(matching: ["server": server])
        #expect(one.items.map(\.id) == [alice])
        #expect(one.secretOfOne == Array("alice's".utf8))
        let bob = try store.createItem(attributes: attributes(server, user: "bob"), label: "b", value: Array("bob's".utf8))
        let two = try store.itemsReadingSecretOfOne(matching: ["server": server])
        #expect(Set(two.items.map(\.id)) == [alice, bob] && two.secretOfOne == nil, "two matches: no secret read along")
        #expect(try store.itemsReadingSecretOfOne(matching: ["server": server, "user": "bob"]).secretOfOne == Array("bob's".utf8))
        for item in two.items { try store.delete(item) }
    }
}

/// Waits until the wall clock's second changes (modification times have
/// one-second resolution).
private func waitForTheNextSecond() {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let second = now.tv_sec
    while true {
        clock_gettime(CLOCK_REALTIME, &now)
        if now.tv_sec != second { return }
        usleep(10_000)
    }
}
