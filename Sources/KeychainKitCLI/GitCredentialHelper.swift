// SPDX-License-Identifier: MIT
import KeychainKitHelperProtocols
import KeychainKitAPI

#if canImport(Glibc)
import Glibc
#endif

/// git's credential helper on the Secret Service (or the default store): `get`, `store` and
/// `erase` (gitcredentials(7)), on items stored as
/// ``GitCredentialItems`` describes. Run as `git-credential-keychainkit`
/// (what `git config credential.helper keychainkit` runs) or as
/// `keychainkit git-credential`.
///
/// A request that pins nothing down does nothing, as git's own helpers do:
/// `get` needs a protocol and a host or path; `store` those, a username and
/// a password; `erase` any of protocol, host, path or username (an empty
/// request would erase everything). Failures (locked, no Secret Service)
/// end with a message and a non-zero status, which git reports and passes
/// over: it asks the user instead. Nothing waits without a bound.
struct GitCredentialHelper {

    let store: any AttributeItemStore

    static let operations: Set<String> = ["get", "store", "erase"]

    /// Runs `operation` on the credential git writes to standard input.
    /// Other operations are ignored, as git asks of helpers.
    func run(_ operation: String) throws(CLIFailure) {
        guard Self.operations.contains(operation) else { return }
        // Up to the empty line that ends a credential (someone typing one
        // in a terminal), or the end of git's input.
        var input = try StandardStreams.readAll(
            STDIN_FILENO, atMost: GitCredential.longestInput, what: "the credential", until: GitCredential.isComplete)
        defer { input.wipe() }
        var request: GitCredential
        do throws(GitCredential.Fault) { request = try GitCredential(parsing: input) } catch {
            throw CLIFailure(.usage, error.message)
        }
        defer { request.wipe() }
        switch operation {
        case "get": try get(request)
        case "store": try save(request)
        default: try erase(request)
        }
    }

    /// Writes the first credential that matches `request` and has not
    /// expired: unlocked items before locked ones, each the most recently
    /// modified first.
    private func get(_ request: GitCredential) throws(CLIFailure) {
        guard request.protocolName != nil, request.host != nil || request.path != nil else { return }
        let now = UInt64(max(0, time(nil)))
        let items: [AttributeItem]
        var secretOfOne: [UInt8]?  // the one reference to it: wiped below
        (items, secretOfOne) = try matches(request, readingSecretOfOne: true)
        defer { secretOfOne?.wipe() }
        for item in items {
            var found = try stored(in: item, readAlong: items.count == 1 ? secretOfOne : nil)
            defer { found?.wipe() }
            guard let credential = found, !credential.hasExpired(now: now) else { continue }
            guard credential.canBeWritten else {
                StandardStreams.writeError(
                    "git-credential-keychainkit: skipped a stored credential whose username or secret holds a newline or NUL or ends in CR, "
                        + "which git's protocol cannot carry\n")
                continue
            }
            var output = credential.output()
            defer { output.wipe() }
            return try StandardStreams.write(output)
        }
    }

    /// Stores `request` as the credential's one item, as server logins are
    /// stored (``AttributeItemStore/storeOne(_:attributes:schema:label:)``):
    /// in place in an item of the schema with the same credential
    /// attributes, else in a new one; its copies under another schema
    /// (git-credential-libsecret's newer `org.git.Password`) are removed.
    private func save(_ request: GitCredential) throws(CLIFailure) {
        guard request.protocolName != nil, request.host != nil || request.path != nil,
              request.username != nil, request.password != nil
        else { return }
        var secret = GitCredentialItems.secret(of: request)
        defer { secret.wipe() }
        _ = try call("storing the credential") { () throws(KeychainError) in
            try store.storeOne(
                secret, attributes: GitCredentialItems.attributes(of: request), schema: GitCredentialItems.schema,
                label: GitCredentialItems.label(of: request))
        }
    }

    /// Deletes the items that match `request`; when it carries a password,
    /// only those holding that password, so that rejecting an old password
    /// never erases a new one another git process stored meanwhile.
    private func erase(_ request: GitCredential) throws(CLIFailure) {
        guard request.protocolName != nil || request.host != nil || request.path != nil || request.username != nil
        else { return }
        let items: [AttributeItem]
        var secretOfOne: [UInt8]?
        (items, secretOfOne) = try matches(request, readingSecretOfOne: request.password != nil)
        defer { secretOfOne?.wipe() }
        for item in items {
            if let password = request.password {
                var found = try stored(in: item, readAlong: items.count == 1 ? secretOfOne : nil)
                defer { found?.wipe() }
                guard let stored = found?.password, stored == password else { continue }
            }
            try call("erasing a credential") { () throws(KeychainError) in try store.delete(item) }
        }
    }

    /// The items whose attributes include those `request` pins down,
    /// unlocked first, each the most recently modified first; with
    /// `readingSecretOfOne`, the secret of the one match when the store
    /// read it along (``AttributeItemStore/itemsReadingSecretOfOne(matching:)``).
    private func matches(
        _ request: GitCredential, readingSecretOfOne: Bool = false
    ) throws(CLIFailure) -> (items: [AttributeItem], secretOfOne: [UInt8]?) {
        let attributes = GitCredentialItems.attributes(of: request)
        let (items, secretOfOne) = try call("looking up the credential") { () throws(KeychainError) in
            readingSecretOfOne ? try store.itemsReadingSecretOfOne(matching: attributes) : (try store.items(matching: attributes), nil)
        }
        return (items.filter { !$0.isLocked } + items.filter(\.isLocked), secretOfOne)
    }

    /// The credential `item` holds (its secret `readAlong` when the search
    /// read it, else read now); `nil` when it was deleted meanwhile.
    private func stored(in item: AttributeItem, readAlong: [UInt8]? = nil) throws(CLIFailure) -> GitCredential? {
        if let readAlong { return GitCredentialItems.credential(user: item.attributes["user"], secret: readAlong) }
        guard var secret = try call("reading the credential", { () throws(KeychainError) in try store.secret(of: item) })
        else { return nil }
        defer { secret.wipe() }
        return GitCredentialItems.credential(user: item.attributes["user"], secret: secret)
    }

    private func call<R>(_ what: String, _ body: () throws(KeychainError) -> R) throws(CLIFailure) -> R {
        try keychainCall(what, detail: store.failureDetail(for:), body)
    }
}
