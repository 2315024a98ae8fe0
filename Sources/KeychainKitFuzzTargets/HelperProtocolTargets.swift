// SPDX-License-Identifier: MIT
import KeychainKitHelperProtocols

// The fuzzers' entries into the helpers' protocols (IntegrationTests/fuzz,
// kk_fuzz_protocols.c): each takes one input as the bytes git or Docker
// would send, and checks what must hold for every input. A violation
// traps (FuzzCheck.require), which libFuzzer reports as a crash with the
// input saved.

/// git's credential lines (`git-credential-keychainkit get|store|erase`
/// reads them from git):
/// - parsing never crashes, and refuses with a message that never repeats
///   the input (it may hold a password);
/// - a credential that parses and ``GitCredential/canBeWritten`` is written
///   (``GitCredential/output()``) as lines that parse back to the same
///   username, password, expiry and refresh token, so what `get` tells
///   git is what was stored;
/// - a host split from its port splits the same way again.
@_cdecl("kk_fuzz_git_credential")
public func fuzzGitCredential(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput.bytes(data, size)
    defer { input.wipe() }
    _ = GitCredential.isComplete(input)
    var credential: GitCredential
    do throws(GitCredential.Fault) { credential = try GitCredential(parsing: input) } catch {
        FuzzCheck.require(!error.message.isEmpty, "a refusal has a message")
        FuzzCheck.require(error.message.utf8.count <= 200, "a refusal's message does not repeat the input")
        return 0
    }
    defer { credential.wipe() }
    if let host = credential.host, let port = credential.port {
        let again = GitCredential.splitPort("\(host):\(port)")
        FuzzCheck.require(again.0 == host && again.1 == port, "host:port splits back to the same host and port")
    }
    guard credential.canBeWritten else { return 0 }
    var written = credential.output()
    defer { written.wipe() }
    var back: GitCredential
    do throws(GitCredential.Fault) { back = try GitCredential(parsing: written) } catch {
        FuzzCheck.fail("what get writes is refused when read back: \(error.message)")
    }
    defer { back.wipe() }
    FuzzCheck.require(back.username == credential.username, "the username reads back as written")
    FuzzCheck.require(back.password == credential.password, "the password reads back as written")
    FuzzCheck.require(back.passwordExpiryUTC == credential.passwordExpiryUTC, "the expiry reads back as written")
    FuzzCheck.require(back.oauthRefreshToken == credential.oauthRefreshToken, "the refresh token reads back as written")
    return 0
}

/// docker-credential-helpers' JSON (`docker-credential-keychainkit store`
/// reads a `credentials.Credentials` object from Docker):
/// - parsing never crashes, and refuses with Go's short words, never
///   repeating the input;
/// - the fields found that are UTF-8, quoted as the helper writes them
///   (``CredentialJSON/quoted(_:)``) into an object, parse back to the
///   same bytes (other bytes are kept as they came, for the helper to
///   refuse; the writer would repair them);
/// - the input's bytes as a string value, quoted and read back, are
///   themselves when they are UTF-8.
@_cdecl("kk_fuzz_docker_credential")
public func fuzzDockerCredential(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput.bytes(data, size)
    defer { input.wipe() }
    let names = ["ServerURL", "Username", "Secret"]
    if String(validating: input, as: UTF8.self) != nil {
        var quoted = Array("{\"Secret\":".utf8) + CredentialJSON.quoted(input) + [UInt8(ascii: "}")]
        defer { quoted.wipe() }
        var back = readFields(names, of: quoted)
        defer { back.wipeValues() }
        FuzzCheck.require(back?["Secret"] == input, "a UTF-8 value quoted by the writer reads back as itself")
    }
    var read = readFields(names, of: input)
    defer { read.wipeValues() }
    guard let found = read else { return 0 }
    // Bytes that are not UTF-8 are kept as they came (the helper refuses
    // such a name rather than repair it); the writer repairs them, so only
    // UTF-8 fields are written back.
    let writable = found.filter { String(validating: $0.value, as: UTF8.self) != nil }
    var object = [UInt8(ascii: "{")]
    for name in names {
        guard let value = writable[name] else { continue }
        if object.count > 1 { object.append(UInt8(ascii: ",")) }
        object += CredentialJSON.quoted(Array(name.utf8)) + [UInt8(ascii: ":")] + CredentialJSON.quoted(value)
    }
    object.append(UInt8(ascii: "}"))
    defer { object.wipe() }
    var back = readFields(names, of: object)
    defer { back.wipeValues() }
    FuzzCheck.require(back.map { $0 == writable } ?? false, "the fields, written by the writer, read back the same")
    return 0
}

/// The fields of `input`, or `nil` when it is refused (checking the
/// refusal's message).
private func readFields(_ names: [String], of input: [UInt8]) -> [String: [UInt8]]? {
    do throws(CredentialJSON.Fault) {
        return try CredentialJSON.stringFields(names, of: input, structName: "credentials.Credentials")
    } catch {
        FuzzCheck.require(!error.message.isEmpty, "a refusal has a message")
        FuzzCheck.require(error.message.utf8.count <= 200, "a refusal's message does not repeat the input")
        return nil
    }
}

extension Optional where Wrapped == [String: [UInt8]] {
    fileprivate mutating func wipeValues() {
        guard var fields = self else { return }
        for name in fields.keys { fields[name]?.wipe() }
        self = nil
    }
}
