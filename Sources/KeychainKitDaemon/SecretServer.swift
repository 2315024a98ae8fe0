// SPDX-License-Identifier: MIT
import KeychainKitBus
import KeychainKitFileStore
import KeychainKitSecretService
import KeychainKitSystem
#if canImport(Glibc)
import Glibc
#endif

/// The Secret Service on one bus connection: its collections, the
/// clients' transfer sessions and prompts, and the answer to every call
/// sent to an object below `/org/freedesktop/secrets`. One thread drives
/// it (``BusConnection/serve(until:watching:onWatched:due:)``): each
/// client's calls are answered in its order, one call of each client in
/// turn (``ServerLimits`` bounds what waits).
final class SecretServer {

    let bus: BusConnection
    /// Where collections' keyring files are: `<dataDirectory>/<name>.keyring`.
    let dataDirectory: String

    private(set) var collections: [String: ServedCollection] = [:]
    private var aliases: [String: String] = [:]
    private var sessions: [UInt32: ServerSession] = [:]
    private var prompts: [UInt32: ServerPrompt] = [:]
    private var nextSession: UInt32 = 1
    private var nextPrompt: UInt32 = 1
    /// The login collection's password while it is unlocked: it seals the
    /// collections created over the bus (wiped at lock and exit).
    private var master: [UInt8]?
    private var registrations: [BusRegistration] = []

    /// The collection the `default` alias names at start, kept in a file.
    static let loginCollection = "login"
    /// The collection kept in memory until the daemon ends.
    static let sessionCollection = "session"

    /// How long a shown prompt waits for a terminal's unlock before it
    /// completes dismissed, in microseconds.
    let promptTimeout: UInt64

    init(bus: BusConnection, dataDirectory: String, master: [UInt8]?, promptTimeout: UInt64) throws(ServiceError) {
        self.bus = bus
        self.dataDirectory = dataDirectory
        self.promptTimeout = promptTimeout
        let now = ServedCollection.now
        collections[Self.sessionCollection] = ServedCollection(
            name: Self.sessionCollection, label: "Session", store: MemoryCollectionStore(), created: now)
        aliases["session"] = Self.sessionCollection
        for name in try Self.keyringNames(in: dataDirectory) + [Self.loginCollection] where collections[name] == nil {
            let store: FileCollectionStore
            do throws(ServiceError) {
                store = try FileCollectionStore(path: keyringPath(name), master: master.map { .secret($0) })
            } catch where name != Self.loginCollection {
                // Sealed with another password: locked until that one comes.
                store = try FileCollectionStore(path: keyringPath(name), master: nil)
            }
            collections[name] = ServedCollection(name: name, label: name == Self.loginCollection ? "Login" : name, store: store, created: now)
        }
        aliases["default"] = Self.loginCollection
        loadAliases()
        if let master, !(collections[Self.loginCollection]!.isLocked) { self.master = master }
        for collection in collections.values { _ = try? collection.sync() }
    }

    deinit {
        master?.wipe()
    }

    /// Serves the objects, and hears clients leave (their sessions and
    /// prompts end) and the name taken from us (`onNameLost`).
    func start(onNameLost: @escaping () -> Void) throws(BusFailure) {
        let waiting = FairQueueLimits(
            callsPerSender: ServerLimits.waitingCallsPerClient, bytesPerSender: ServerLimits.waitingBytesPerClient,
            calls: ServerLimits.waitingCalls, bytes: ServerLimits.waitingBytes)
        registrations.append(try bus.serveObjects(under: ObjectPath.root, limits: waiting) { [unowned self] call in handle(call) })
        let daemon = "type='signal',sender='\(BusNames.Bus.name)',path='\(BusNames.Bus.path)',interface='\(BusNames.Bus.interface)'"
        let owners = daemon + ",member='\(BusNames.Bus.nameOwnerChanged)'"
        // The rules' sender is a well-known name, which sd-bus cannot match
        // locally: a peer may send these signals straight to us. Believed
        // only from the bus daemon (as GLib checks since CVE-2024-34397).
        registrations.append(try bus.watch(owners) { [unowned self] signal in
            if signal.sender == BusNames.Bus.name { clientLeft(signal) }
        })
        let lost = daemon + ",member='\(BusNames.Bus.nameLost)'"
        registrations.append(try bus.watch(lost) { signal in
            if signal.sender == BusNames.Bus.name, (try? signal.readString()) == SecretServiceNames.busName { onNameLost() }
        })
    }

    func keyringPath(_ name: String) -> String { "\(dataDirectory)/\(name).keyring" }

    // MARK: Aliases kept across restarts

    private var aliasesPath: String { "\(dataDirectory)/\(PersistedAliases.fileName)" }

    /// What ``PersistedAliases`` keeps of ``aliases``.
    private var lastingAliases: [String: String] {
        aliases.filter { $0.key != Self.sessionCollection && $0.value != Self.sessionCollection }
    }

    /// Takes the kept aliases of collections that exist; a file refused
    /// (not the user's, readable by others) is reported and left alone.
    private func loadAliases() {
        do throws(PrivateFile.Failure) {
            guard let bytes = try PrivateFile.read(aliasesPath) else { return }
            for (alias, name) in PersistedAliases.parse(bytes, limit: ServerLimits.aliases)
            where alias != Self.sessionCollection && name != Self.sessionCollection && collections[name] != nil {
                aliases[alias] = name
            }
        } catch {
            complain("aliases not read: \(error.message)")
        }
    }

    /// Writes the kept aliases, when they differ from the file's.
    private func saveAliases() throws(PrivateFile.Failure) {
        let wanted = PersistedAliases.render(lastingAliases)
        if try PrivateFile.read(aliasesPath) == wanted { return }
        try PrivateFile.write(wanted, to: aliasesPath)
    }

    /// The names of the keyring files in `directory` (`NAME.keyring`,
    /// NAME an object path element).
    static func keyringNames(in directory: String) throws(ServiceError) -> [String] {
        guard let dir = opendir(directory) else {
            if errno == ENOENT { return [] }
            throw ServiceError(name: BusNames.BusError.failed, message: "cannot read \(directory)")
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let file = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard file.hasSuffix(".keyring") else { continue }
            let name = String(file.dropLast(".keyring".count))
            if !name.isEmpty && ObjectPath.collectionName(fromLabel: name) == name { names.append(name) }
        }
        return names.sorted()
    }

    // MARK: Answering calls

    private func handle(_ call: BusMessage) {
        do throws(ServiceError) {
            try dispatch(call)
        } catch {
            try? bus.replyError(to: call, name: error.name, message: error.message)
        }
    }

    private func dispatch(_ call: BusMessage) throws(ServiceError) {
        let path = call.path ?? ""
        let interface = call.interface ?? ""
        let member = call.member ?? ""
        guard let object = ObjectPath(path), exists(object) else { throw ServiceError.noSuchObject(path) }
        switch interface {
        case BusNames.Introspectable.interface where member == BusNames.Introspectable.introspect:
            try expect(call, "")
            try reply(call) { message throws(BusFailure) in try message.append(Introspection.xml(for: object, children: children(of: object))) }
        case BusNames.Properties.interface:
            try answerProperties(call, member, of: object)
        case SecretServiceNames.Service.interface where object == .service:
            try answerService(call, member)
        case SecretServiceNames.MasterPassword.interface where object == .service:
            try answerMasterPassword(call, member)
        case SecretServiceNames.Collection.interface:
            guard let collection = collection(of: object), !isItem(object) else { throw ServiceError.unknownMethod(interface, member) }
            try answerCollection(call, member, collection)
        case SecretServiceNames.Item.interface:
            guard case let .item(name, number) = object else { throw ServiceError.unknownMethod(interface, member) }
            try answerItem(call, member, collections[name]!, number)
        case SecretServiceNames.Session.interface where member == SecretServiceNames.Session.close:
            guard case let .session(number) = object else { throw ServiceError.unknownMethod(interface, member) }
            try expect(call, "")
            _ = try session(path, of: call)
            sessions[number] = nil
            try reply(call) { _ throws(BusFailure) in }
        case SecretServiceNames.Prompt.interface:
            guard case let .prompt(number) = object else { throw ServiceError.unknownMethod(interface, member) }
            try answerPrompt(call, member, number)
        default:
            throw ServiceError.unknownMethod(interface, member)
        }
    }

    /// Whether the object exists now.
    private func exists(_ object: ObjectPath) -> Bool {
        switch object {
        case .service: true
        case .collection, .alias: collection(of: object) != nil
        case let .item(name, number): collections[name]?.contains(number) ?? false
        case let .session(number): sessions[number] != nil
        case let .prompt(number): prompts[number] != nil
        }
    }

    private func isItem(_ object: ObjectPath) -> Bool {
        if case .item = object { return true }
        return false
    }

    /// The collection an object is or belongs to (an alias resolved).
    func collection(of object: ObjectPath) -> ServedCollection? {
        switch object {
        case let .collection(name): collections[name]
        case let .item(name, _): collections[name]
        case let .alias(alias): aliases[alias].flatMap { collections[$0] }
        default: nil
        }
    }

    private func children(of object: ObjectPath) -> [String] {
        switch object {
        case .service: ["collection", "aliases"]
        case .collection, .alias: collection(of: object)?.numbers().map { String($0) } ?? []
        default: []
        }
    }

    /// Checks the call's arguments are of `signature`.
    func expect(_ call: BusMessage, _ signature: String) throws(ServiceError) {
        guard call.signature == signature else {
            throw ServiceError.invalidArguments("\(call.member ?? "the call") takes (\(signature)), not (\(call.signature))")
        }
    }

    /// Sends the method return `fill` writes.
    func reply(_ call: BusMessage, _ fill: (BusMessage) throws(BusFailure) -> Void) throws(ServiceError) {
        do throws(BusFailure) {
            let message = try bus.reply(to: call)
            try fill(message)
            try bus.send(message)
        } catch {
            throw ServiceError(name: BusNames.BusError.failed, message: "the answer could not be sent: \(error.message)")
        }
    }

    /// Reads the call's arguments with the message's reader.
    func arguments<R>(_ call: BusMessage, _ read: (BusMessage) throws(BusFailure) -> R) throws(ServiceError) -> R {
        do throws(BusFailure) { return try read(call) } catch {
            throw ServiceError.invalidArguments("\(call.member ?? "the call"): \(error.message)")
        }
    }

    /// The session at `path`, which must be the caller's.
    func session(_ path: String, of call: BusMessage) throws(ServiceError) -> ServerSession {
        guard case let .session(number)? = ObjectPath(path), let session = sessions[number], session.owner == call.sender else {
            throw ServiceError.noSession(path)
        }
        return session
    }

    // MARK: Service

    private func answerService(_ call: BusMessage, _ member: String) throws(ServiceError) {
        switch member {
        case SecretServiceNames.Service.openSession:
            try expect(call, "sv")
            let algorithm = try arguments(call) { message throws(BusFailure) in try message.readString() }
            let owner = call.sender ?? ""
            guard sessions.values.filter({ $0.owner == owner }).count < ServerLimits.sessionsPerClient,
                  sessions.count < ServerLimits.sessions else {
                throw ServiceError.limit("too many open sessions (at most \(ServerLimits.sessionsPerClient) a connection)")
            }
            let (session, output, publicKey) = try ServerSession.open(algorithm, from: call, number: nextSession, owner: owner)
            nextSession &+= 1
            sessions[session.number] = session
            try reply(call) { message throws(BusFailure) in
                if let publicKey {
                    try message.openContainer("v", "ay")
                    try message.append(bytes: publicKey)
                    try message.closeContainer()
                } else {
                    try message.append(variant: output ?? .string(""))
                }
                try message.append(session.path, as: "o")
            }
        case SecretServiceNames.Service.searchItems:
            try expect(call, "a{ss}")
            let attributes = try arguments(call) { message throws(BusFailure) in try message.readDictionary() }
            var unlocked: [String] = []
            var locked: [String] = []
            for collection in sortedCollections() {
                try announce(collection, try collection.sync())
                let paths = collection.search(attributes).map(collection.itemPath)
                if collection.isLocked { locked += paths } else { unlocked += paths }
            }
            try reply(call) { message throws(BusFailure) in
                try message.append(objectPaths: unlocked)
                try message.append(objectPaths: locked)
            }
        case SecretServiceNames.Service.getSecrets:
            try expect(call, "aoo")
            let (paths, sessionPath) = try arguments(call) { message throws(BusFailure) in
                (try message.readObjectPaths(), try message.readString(as: "o"))
            }
            let session = try session(sessionPath, of: call)
            guard paths.count <= ServerLimits.itemsPerCall else {
                throw ServiceError.limit("at most \(ServerLimits.itemsPerCall) items a call")
            }
            var secrets: [(String, (value: [UInt8], contentType: String))] = []
            defer { for index in secrets.indices { secrets[index].1.value.wipe() } }
            for path in paths {
                guard case let .item(name, number)? = ObjectPath(path), let collection = collections[name],
                      !collection.isLocked, collection.contains(number) else { continue }
                try announce(collection, try collection.sync())
                guard collection.contains(number) else { continue }
                secrets.append((path, try collection.secret(of: number)))
            }
            try reply(call) { message throws(BusFailure) in
                message.markSensitive()
                try message.openContainer("a", "{o(oayays)}")
                for (path, secret) in secrets {
                    try message.openContainer("e", "o(oayays)")
                    try message.append(path, as: "o")
                    try session.append(secret.value, contentType: secret.contentType, to: message)
                    try message.closeContainer()
                }
                try message.closeContainer()
            }
        case SecretServiceNames.Service.unlock, SecretServiceNames.Service.lock:
            try expect(call, "ao")
            let paths = try arguments(call) { message throws(BusFailure) in try message.readObjectPaths() }
            let (done, pending) = try member == SecretServiceNames.Service.lock ? lock(paths) : unlock(paths)
            var promptPath = ObjectPath.none
            if !pending.isEmpty {
                let waiting = paths.filter { path in
                    ObjectPath(path).flatMap(collection(of:)).map { found in pending.contains { $0 === found } } ?? false
                }
                promptPath = try makePrompt(for: call.sender ?? "", unlocking: pending, objects: waiting).path
            }
            try reply(call) { message throws(BusFailure) in
                try message.append(objectPaths: done)
                try message.append(promptPath, as: "o")
            }
        case SecretServiceNames.Service.readAlias:
            try expect(call, "s")
            let alias = try arguments(call) { message throws(BusFailure) in try message.readString() }
            let path = aliases[alias].flatMap { collections[$0]?.path } ?? ObjectPath.none
            try reply(call) { message throws(BusFailure) in try message.append(path, as: "o") }
        case SecretServiceNames.Service.setAlias:
            try expect(call, "so")
            let (alias, path) = try arguments(call) { message throws(BusFailure) in
                (try message.readString(), try message.readString(as: "o"))
            }
            guard ObjectPath.collectionName(fromLabel: alias) == alias else {
                throw ServiceError.invalidArguments("an alias is made of lowercase letters, digits and _")
            }
            let before = aliases
            if path == ObjectPath.none {
                aliases[alias] = nil
            } else {
                guard let object = ObjectPath(path), case .collection = object, let collection = collection(of: object) else {
                    throw ServiceError.noSuchObject(path)
                }
                guard aliases[alias] != nil || aliases.count < ServerLimits.aliases else {
                    throw ServiceError.limit("at most \(ServerLimits.aliases) aliases")
                }
                aliases[alias] = collection.name
            }
            do throws(PrivateFile.Failure) {
                try saveAliases()
            } catch {
                aliases = before
                throw ServiceError(name: BusNames.BusError.failed, message: "the alias could not be kept: \(error.message)")
            }
            try reply(call) { _ throws(BusFailure) in }
        case SecretServiceNames.Service.createCollection:
            try expect(call, "a{sv}s")
            var label = ""
            let alias = try arguments(call) { message throws(BusFailure) in
                try message.readProperties { name, type throws(BusFailure) in
                    guard name == SecretServiceNames.Collection.labelProperty, type == "s" else { return false }
                    label = try message.readString()
                    return true
                }
                return try message.readString()
            }
            let collection = try createCollection(label: label, alias: alias, master: nil)
            try reply(call) { message throws(BusFailure) in
                try message.append(collection.path, as: "o")
                try message.append(ObjectPath.none, as: "o")
            }
        default:
            throw ServiceError.unknownMethod(SecretServiceNames.Service.interface, member)
        }
    }

    func sortedCollections() -> [ServedCollection] {
        collections.keys.sorted().map { collections[$0]! }
    }

    /// Creates a collection kept in a file, sealed with `master` (else the
    /// login collection's password; with neither it cannot be made). An
    /// alias that already names a collection returns that one.
    func createCollection(label: String, alias: String, master given: [UInt8]?) throws(ServiceError) -> ServedCollection {
        if !alias.isEmpty, let existing = aliases[alias].flatMap({ collections[$0] }) { return existing }
        guard collections.count < ServerLimits.collections else {
            throw ServiceError.limit("at most \(ServerLimits.collections) collections")
        }
        guard let master = given ?? master else {
            throw ServiceError.isLocked("the login collection (its password seals new collections): unlock it first")
        }
        let base = ObjectPath.collectionName(fromLabel: label)
        var name = base
        var suffix = 1
        while collections[name] != nil || access(keyringPath(name), F_OK) == 0 {
            suffix += 1
            name = "\(base)_\(suffix)"
        }
        let store = try FileCollectionStore(path: keyringPath(name), master: .secret(master))
        try store.writeFile()  // else it would not outlive a restart before its first item
        let collection = ServedCollection(name: name, label: label, store: store, created: ServedCollection.now)
        collections[name] = collection
        if !alias.isEmpty && ObjectPath.collectionName(fromLabel: alias) == alias && aliases.count < ServerLimits.aliases {
            aliases[alias] = name
            do throws(PrivateFile.Failure) { try saveAliases() } catch { complain("the alias \(alias) is kept until the daemon ends: \(error.message)") }
        }
        emit(ObjectPath.root, SecretServiceNames.Service.interface, SecretServiceNames.Service.collectionCreated, collection.path)
        emitPropertiesChanged(ObjectPath.root, SecretServiceNames.Service.interface, [SecretServiceNames.Service.collectionsProperty: .objectPaths(sortedCollections().map(\.path))])
        return collection
    }

    /// Locks the collections of `paths` (items lock with theirs).
    private func lock(_ paths: [String]) throws(ServiceError) -> (done: [String], pending: [ServedCollection]) {
        for path in paths {
            guard let object = ObjectPath(path), let collection = collection(of: object) else { continue }
            if !collection.isLocked {
                collection.lock()
                if collection.name == Self.loginCollection { forgetMaster() }
                lockChanged(collection)
            }
        }
        return (paths.filter { ObjectPath($0).flatMap(collection(of:)) != nil }, [])
    }

    /// Unlocks what needs no password (the session collection, and
    /// collections sealed with the login password while it is known); the
    /// rest waits for a prompt.
    private func unlock(_ paths: [String]) throws(ServiceError) -> (done: [String], pending: [ServedCollection]) {
        var done: [String] = []
        var pending: [ServedCollection] = []
        for path in paths {
            guard let object = ObjectPath(path), let collection = collection(of: object) else { continue }
            if collection.isLocked && collection.store is MemoryCollectionStore {
                _ = try collection.unlock(master: [])
                lockChanged(collection)
            }
            if collection.isLocked {
                if !pending.contains(where: { $0 === collection }) { pending.append(collection) }
            } else {
                done.append(path)
            }
        }
        return (done, pending)
    }

    private func forgetMaster() {
        master?.wipe()
        master = nil
    }

    /// Announces that `collection` locked or unlocked.
    func lockChanged(_ collection: ServedCollection) {
        emitPropertiesChanged(collection.path, SecretServiceNames.Collection.interface, [SecretServiceNames.Collection.lockedProperty: .bool(collection.isLocked)])
        emit(ObjectPath.root, SecretServiceNames.Service.interface, SecretServiceNames.Service.collectionChanged, collection.path)
        if !collection.isLocked { completePrompts() }
    }

    // MARK: The master password interface

    private func answerMasterPassword(_ call: BusMessage, _ member: String) throws(ServiceError) {
        switch member {
        case SecretServiceNames.MasterPassword.unlock:
            try expect(call, "o(oayays)")
            let path = try arguments(call) { message throws(BusFailure) in try message.readString(as: "o") }
            var password = try readSecret(call)
            defer { password.value.wipe() }
            guard let object = ObjectPath(path), let collection = collection(of: object) else { throw ServiceError.noSuchObject(path) }
            if collection.isLocked {
                try announce(collection, try collection.unlock(master: password.value))
                if collection.name == Self.loginCollection {
                    forgetMaster()
                    master = password.value
                }
                lockChanged(collection)
            }
            try reply(call) { _ throws(BusFailure) in }
        case SecretServiceNames.MasterPassword.create:
            try expect(call, "a{sv}(oayays)")
            var label = ""
            try arguments(call) { message throws(BusFailure) in
                try message.readProperties { name, type throws(BusFailure) in
                    guard name == SecretServiceNames.Collection.labelProperty, type == "s" else { return false }
                    label = try message.readString()
                    return true
                }
            }
            var password = try readSecret(call)
            defer { password.value.wipe() }
            guard !password.value.isEmpty else { throw ServiceError.invalidArguments("an empty password seals nothing") }
            let collection = try createCollection(label: label, alias: "", master: password.value)
            try reply(call) { message throws(BusFailure) in try message.append(collection.path, as: "o") }
        case SecretServiceNames.MasterPassword.change:
            try expect(call, "o(oayays)(oayays)")
            let path = try arguments(call) { message throws(BusFailure) in try message.readString(as: "o") }
            var original = try readSecret(call)
            defer { original.value.wipe() }
            var password = try readSecret(call)
            defer { password.value.wipe() }
            guard let object = ObjectPath(path), let collection = collection(of: object) else { throw ServiceError.noSuchObject(path) }
            guard let store = collection.store as? FileCollectionStore else {
                throw ServiceError.notSupported("\(path) is kept in memory, with no password")
            }
            guard !password.value.isEmpty else { throw ServiceError.invalidArguments("an empty password seals nothing") }
            let wasLocked = collection.isLocked
            try store.changeMaster(from: original.value, to: password.value)
            try announce(collection, try collection.sync())
            if collection.name == Self.loginCollection {
                forgetMaster()
                master = password.value
            }
            if wasLocked { lockChanged(collection) }
            try reply(call) { _ throws(BusFailure) in }
        default:
            throw ServiceError.notSupported("\(member) is not supported by keychainkitd")
        }
    }

    /// Reads a secret struct from `call` and decrypts it in its session,
    /// which must be the caller's.
    func readSecret(_ call: BusMessage) throws(ServiceError) -> (value: [UInt8], contentType: String) {
        var sent = try ServerSession.readSecret(from: call)
        defer { sent.value.wipe() }
        guard sent.value.count <= ServerLimits.largestSecret + 32 else {
            throw ServiceError.limit("a secret of at most \(ServerLimits.largestSecret) bytes")
        }
        let value = try session(sent.session, of: call).decrypt(parameters: sent.parameters, value: sent.value)
        guard value.count <= ServerLimits.largestSecret else {
            throw ServiceError.limit("a secret of at most \(ServerLimits.largestSecret) bytes")
        }
        return (value, sent.contentType)
    }

    // MARK: Clients leaving

    private func clientLeft(_ signal: BusMessage) {
        guard let (name, _, newOwner) = try? (signal.readString(), signal.readString(), signal.readString()),
              name.hasPrefix(":"), newOwner.isEmpty else { return }
        // Its calls still waiting would open sessions and prompts nobody ends.
        bus.discardWaitingCalls(from: name)
        sessions = sessions.filter { $0.value.owner != name }
        prompts = prompts.filter { $0.value.owner != name }
    }

    // MARK: Prompts

    private func makePrompt(
        for owner: String, unlocking pending: [ServedCollection], objects: [String]
    ) throws(ServiceError) -> ObjectPath {
        guard prompts.values.filter({ $0.owner == owner }).count < ServerLimits.promptsPerClient else {
            throw ServiceError.limit("too many pending prompts (at most \(ServerLimits.promptsPerClient) a connection)")
        }
        let number = nextPrompt
        nextPrompt &+= 1
        prompts[number] = ServerPrompt(number: number, owner: owner, collections: pending.map(\.name), objects: objects)
        return .prompt(number)
    }

    private func answerPrompt(_ call: BusMessage, _ member: String, _ number: UInt32) throws(ServiceError) {
        guard let prompt = prompts[number], prompt.owner == call.sender else {
            throw ServiceError.noSuchObject(call.path ?? "")
        }
        switch member {
        case SecretServiceNames.Prompt.prompt:
            try expect(call, "s")
            try reply(call) { _ throws(BusFailure) in }
            // Nothing to show: the prompt completes when a terminal
            // unlocks the collections (keychainkit unlock), or is dismissed
            // (by the client, or when it has waited promptTimeout).
            prompts[prompt.number]?.deadline = Deadline(after: promptTimeout)
            let names = prompt.collections.joined(separator: " ")
            complain("a client (\(prompt.owner)) waits for \(names) to be unlocked: run 'keychainkit unlock \(names)'")
            completePrompts()
        case SecretServiceNames.Prompt.dismiss:
            try expect(call, "")
            try reply(call) { _ throws(BusFailure) in }
            complete(prompt, dismissed: true)
        default:
            throw ServiceError.unknownMethod(SecretServiceNames.Prompt.interface, member)
        }
    }

    /// Completes the shown prompts whose collections are all unlocked now.
    private func completePrompts() {
        for prompt in prompts.values.sorted(by: { $0.number < $1.number }) where prompt.deadline != nil {
            if prompt.collections.allSatisfy({ collections[$0].map { !$0.isLocked } ?? true }) {
                complete(prompt, dismissed: false)
            }
        }
    }

    /// What another program changed in the collections' files: read
    /// again and announced.
    func filesChanged() {
        for collection in sortedCollections() where !collection.isLocked {
            if let changes = try? collection.sync() { try? announce(collection, changes) }
        }
    }

    /// Dismisses the prompts that waited their time; how long until the
    /// next one has (`nil`: none is waiting). For ``BusConnection/serve(until:watching:due:)``.
    func due() -> UInt64? {
        var next: UInt64?
        for prompt in prompts.values.sorted(by: { $0.number < $1.number }) {
            guard let deadline = prompt.deadline else { continue }
            if let left = deadline.remaining {
                next = min(next ?? left, left)
            } else {
                complete(prompt, dismissed: true)
            }
        }
        return next
    }

    private func complete(_ prompt: ServerPrompt, dismissed: Bool) {
        prompts[prompt.number] = nil
        let unlocked = dismissed ? [] : prompt.objects.filter { ObjectPath($0).flatMap(collection(of:)).map { !$0.isLocked } ?? false }
        do throws(BusFailure) {
            let signal = try bus.signal(ObjectPath.prompt(prompt.number).path, SecretServiceNames.Prompt.interface, SecretServiceNames.Prompt.completed)
            try signal.append(dismissed)
            try signal.append(variant: .objectPaths(unlocked))
            try signal.setDestination(prompt.owner)
            try bus.send(signal)
        } catch {}
    }

    // MARK: Signals

    /// Emits the collection's signals for `changes`.
    func announce(_ collection: ServedCollection, _ changes: [ServedCollection.Change]) throws(ServiceError) {
        guard !changes.isEmpty else { return }
        for change in changes {
            switch change {
            case let .created(number): emit(collection.path, SecretServiceNames.Collection.interface, SecretServiceNames.Collection.itemCreated, collection.itemPath(number))
            case let .deleted(number): emit(collection.path, SecretServiceNames.Collection.interface, SecretServiceNames.Collection.itemDeleted, collection.itemPath(number))
            case let .changed(number): emit(collection.path, SecretServiceNames.Collection.interface, SecretServiceNames.Collection.itemChanged, collection.itemPath(number))
            }
        }
        if changes.contains(where: { if case .changed = $0 { false } else { true } }) {
            emitPropertiesChanged(collection.path, SecretServiceNames.Collection.interface,
                                  [SecretServiceNames.Collection.itemsProperty: .objectPaths(collection.numbers().map(collection.itemPath))])
        }
    }

    /// Emits `member(o path)` from `object`.
    func emit(_ object: String, _ interface: String, _ member: String, _ path: String) {
        do throws(BusFailure) {
            let signal = try bus.signal(object, interface, member)
            try signal.append(path, as: "o")
            try bus.send(signal)
        } catch {}
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged`.
    func emitPropertiesChanged(_ object: String, _ interface: String, _ changed: KeyValuePairs<String, BusValue>) {
        do throws(BusFailure) {
            let signal = try bus.signal(object, BusNames.Properties.interface, BusNames.Properties.propertiesChanged)
            try signal.append(interface)
            try signal.append(properties: changed.map { ($0.key, $0.value) })
            try signal.openContainer("a", "s")
            try signal.closeContainer()
            try bus.send(signal)
        } catch {}
    }

    // MARK: Access for the other interfaces

    /// Forgets the collection `name` and the aliases that name it.
    func removeCollection(_ name: String) {
        collections[name] = nil
        let kept = aliases.filter { $0.value != name }
        if kept.count != aliases.count {
            aliases = kept
            // Left in the file, an alias of a collection no longer there is passed over when read.
            do throws(PrivateFile.Failure) { try saveAliases() } catch { complain(error.message) }
        }
        if name == Self.loginCollection { forgetMaster() }
    }
}

/// A prompt the daemon returned from `Unlock`: the collections it waits
/// for, and the connection it belongs to.
struct ServerPrompt {
    let number: UInt32
    let owner: String
    let collections: [String]
    /// The objects the client asked to unlock there (collections or
    /// items): what `Completed` says were unlocked.
    let objects: [String]
    /// Set when `Prompt` is called (only then does it complete): when it
    /// is dismissed if no unlock came.
    var deadline: Deadline?
}
