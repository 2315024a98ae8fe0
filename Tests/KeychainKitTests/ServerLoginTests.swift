// SPDX-License-Identifier: MIT
import KeychainKit
import Testing

/// The backends with items addressed by attributes.
enum AttributeBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory
    case secretService

    var testDescription: String { rawValue }

    func makeStore() throws -> any AttributeItemStore {
        switch self {
        case .memory: return InMemoryKeychainInterface()
        case .secretService:
            try requirePrivateKeyring()
            return SecretServiceKeychainInterface()
        }
    }
}

@Suite("Server logins")
struct ServerLoginTests {

    private func host(_ label: String = #function) -> String { "\(uniqueService(label)).example" }

    @Test(arguments: AttributeBackend.allCases)
    func passwordsRoundTripByExactLogin(_ backend: AttributeBackend) throws {
        let logins = ServerLogins(try backend.makeStore())
        let server = host()
        let imap = ServerLogin(server: server, account: "alice", protocolName: "imap", port: 993)
        let https = ServerLogin(server: server, account: "alice", protocolName: "https")
        try logins.setPassword(Array("imap-pw".utf8), for: imap)
        try logins.setPassword(Array("web-pw".utf8), for: https)
        #expect(try logins.password(for: imap) == Array("imap-pw".utf8))
        #expect(try logins.password(for: https) == Array("web-pw".utf8))
        // Exact: a field left out matches only items without it.
        #expect(try logins.password(for: ServerLogin(server: server, account: "alice")) == nil)
        #expect(try logins.password(for: ServerLogin(server: server, account: "alice", protocolName: "imap")) == nil)
        #expect(try logins.password(for: ServerLogin(server: server, account: "bob", protocolName: "imap", port: 993)) == nil)

        try logins.setPassword(Array("imap-new".utf8), for: imap)
        #expect(try logins.password(for: imap) == Array("imap-new".utf8))
        #expect(try logins.logins(onServer: server).count == 2, "replaced, not added")
        try logins.removePassword(for: imap)
        try logins.removePassword(for: imap)  // absent: no error
        #expect(try logins.password(for: imap) == nil)
        try logins.removePassword(for: https)
        #expect(try logins.logins(onServer: server).isEmpty)
    }

    @Test(arguments: AttributeBackend.allCases)
    func accountsOfAHostAloneWithMetadataAndNoSecrets(_ backend: AttributeBackend) throws {
        let store = try backend.makeStore()
        let logins = ServerLogins(store)
        let server = host()
        try logins.setPassword([1], for: ServerLogin(server: server, account: "bob", protocolName: "https"))
        try logins.setPassword([2], for: ServerLogin(server: server, account: "alice", protocolName: "smb", domain: "WORKGROUP"))
        try logins.setPassword([3], for: ServerLogin(server: server, account: "alice", protocolName: "https", path: "repo"),
                               label: "Alice's repository")
        #expect(try logins.accounts(onServer: server) == ["alice", "bob"])
        let found = try logins.logins(onServer: server)
        #expect(found.count == 3)
        let labelled = try #require(found.first { $0.login.path == "repo" })
        #expect(labelled.item.label == "Alice's repository")
        #expect(labelled.item.attributes["xdg:schema"] == ServerLogin.schema)
        #expect(labelled.item.modified > 0)
        let smb = try #require(found.first { $0.login.protocolName == "smb" })
        #expect(smb.login.domain == "WORKGROUP" && smb.item.label == "smb://alice@\(server)")
        for (login, _) in found { try logins.removePassword(for: login) }
    }

    @Test func attributesAreLibsecretsNetworkPasswordSchema() {
        let login = ServerLogin(server: "h", account: "u", protocolName: "ftp", port: 21, path: "p", domain: "d",
                                authenticationType: "basic")
        #expect(login.attributes == ["server": "h", "user": "u", "protocol": "ftp", "port": "21", "object": "p",
                                     "domain": "d", "authtype": "basic"])
        #expect(ServerLogin(attributes: login.attributes) == login)
        #expect(ServerLogin(attributes: ["server": "h"]) == nil, "no user")
        #expect(ServerLogin(attributes: ["server": "h", "user": "u", "port": "http"]) == nil, "no port number")
    }

    @Test(arguments: AttributeBackend.allCases)
    func badLoginsAreInvalidArguments(_ backend: AttributeBackend) throws {
        let logins = ServerLogins(try backend.makeStore())
        #expect(throws: KeychainError.invalidArgument) { try logins.password(for: ServerLogin(server: "", account: "a")) }
        #expect(throws: KeychainError.invalidArgument) {
            try logins.setPassword([1], for: ServerLogin(server: "h", account: "a\0b"))
        }
        #expect(throws: KeychainError.invalidArgument) { try logins.accounts(onServer: "") }
    }

    @Test func aLockedMemoryStoreIsNeverAbsent() throws {
        let store = InMemoryKeychainInterface()
        let logins = ServerLogins(store)
        let login = ServerLogin(server: "h.example", account: "a")
        try logins.setPassword([1], for: login)
        store.simulateFailure(.interactionNotAllowed)
        #expect(throws: KeychainError.interactionNotAllowed) { try logins.password(for: login) }
        store.simulateFailure(nil)
        #expect(try logins.password(for: login) == [1])
    }
}
