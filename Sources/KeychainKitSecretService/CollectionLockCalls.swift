// SPDX-License-Identifier: MIT
import KeychainKitBus

/// Collections locked and unlocked on request: by name, with a password
/// where the service takes one (no dialog: over SSH too), else through its
/// own unlock prompt.
extension SecretServiceClient {

    private typealias Names = SecretServiceNames

    /// The object path of the collection `name` names: the collection of
    /// the alias `name` (`default`, `session`), else the collection called
    /// `name` (`login`, `kdewallet`, `Passwords`), or `name` itself when it
    /// is an object path of the service. Throws
    /// ``KeychainError/itemNotFound`` when there is none.
    package func collectionPath(named name: String) throws(SecretServiceFailure) -> String {
        if name.hasPrefix("/") {
            try Names.requireServiceObjects([name])
            _ = try lockedCollection(name, named: name)
            return name
        }
        let request = try methodCall(Names.servicePath, Names.Service.interface, Names.Service.readAlias)
        try request.append(name)
        let aliased = try call(request).readString(as: "o")
        if aliased != Names.noObject {
            try Names.requireServiceObjects([aliased])
            return aliased
        }
        let path = "\(Names.servicePath)/collection/\(name)"
        _ = try lockedCollection(path, named: name)
        return path
    }

    /// Whether the collection at `path` is locked; ``KeychainError/itemNotFound``
    /// naming `name` when there is no such collection.
    package func lockedCollection(_ path: String, named name: String) throws(SecretServiceFailure) -> Bool {
        do throws(SecretServiceFailure) {
            return try isLocked(path)
        } catch let failure where failure.error == .itemNotFound {
            throw SecretServiceFailure(.itemNotFound, detail: "the Secret Service has no collection '\(name)'")
        }
    }

    /// Whether the service takes a collection's password over the bus
    /// (gnome-keyring's `UnlockWithMasterPassword`, also oo7-daemon's).
    package func takesMasterPassword() throws(SecretServiceFailure) -> Bool {
        let request = try methodCall(Names.servicePath, Names.Introspectable.interface, Names.Introspectable.introspect)
        return try call(request).readString().contains("\"\(Names.MasterPassword.interface)\"")
    }

    /// Unlocks the locked collection at `path` with `password`, which
    /// crosses the bus in the transfer session (encrypted unless the
    /// session is plain). Throws ``KeychainError/wrongMasterKey`` when the
    /// service refused it and the collection is still locked.
    package func unlock(_ path: String, password: [UInt8]) throws(SecretServiceFailure) {
        let request = try methodCall(Names.servicePath, Names.MasterPassword.interface, Names.MasterPassword.unlock)
        try request.append(path, as: "o")
        try session.append(password, to: request)
        do throws(SecretServiceFailure) {
            _ = try call(request)
        } catch let failure where !failure.connectionLost && failure.error != .itemNotFound {
            // gnome-keyring answers org.gnome.keyring.Error.Denied, oo7 an
            // error of its own: what counts is that it stayed locked.
            guard try isLocked(path) else { return }
            throw SecretServiceFailure(
                .wrongMasterKey, detail: "the Secret Service refused the password; \(path) stays locked")
        }
    }

    /// Locks the collection at `path`, completing the prompt a service may
    /// ask it through (KeePassXC) within `limit`.
    package func lock(_ path: String, confirmingWithin limit: UInt64) throws(SecretServiceFailure) {
        let request = try methodCall(Names.servicePath, Names.Service.interface, Names.Service.lock)
        try request.append(objectPaths: [path])
        let reply = try call(request)
        _ = try reply.readObjectPaths()
        try confirm(try reply.readString(as: "o"), atMost: limit)
        guard try isLocked(path) else {
            throw SecretServiceFailure(.unknownError(code: -1, message: "the Secret Service did not lock \(path)"))
        }
    }
}
