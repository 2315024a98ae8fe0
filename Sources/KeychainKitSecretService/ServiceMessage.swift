// SPDX-License-Identifier: MIT
import KeychainKitBus

/// A message of the Secret Service protocol: a ``BusMessage`` whose every
/// write and read reports its failures as the protocol client classifies
/// them (``SecretServiceFailure``). With the ``BusConnection`` forms below,
/// it is where the bus layer's ``BusFailure`` crosses into the protocol
/// layer, and the only place.
struct ServiceMessage {

    /// The bus layer's message.
    let message: BusMessage

    init(_ message: BusMessage) {
        self.message = message
    }

    /// Marks the message as carrying a secret (see ``BusMessage/markSensitive()``).
    func markSensitive() {
        message.markSensitive()
    }

    /// The unique bus name of the connection that sent the message.
    var sender: String? { message.sender }

    // MARK: Writing

    /// Appends a string (`s`) or object path (`o`).
    func append(_ string: String, as type: Character = "s") throws(SecretServiceFailure) {
        try onBus { () throws(BusFailure) in try message.append(string, as: type) }
    }

    /// Appends a boolean (`b`).
    func append(_ value: Bool) throws(SecretServiceFailure) {
        try onBus { () throws(BusFailure) in try message.append(value) }
    }

    /// Appends an array of object paths (`ao`).
    func append(objectPaths paths: [String]) throws(SecretServiceFailure) {
        try onBus { () throws(BusFailure) in try message.append(objectPaths: paths) }
    }

    /// Appends a byte array (`ay`) of `bytes`.
    func append(bytes: [UInt8]) throws(SecretServiceFailure) {
        try onBus { () throws(BusFailure) in try message.append(bytes: bytes) }
    }

    /// Appends a string dictionary (`a{ss}`), entries in the given order.
    func append(dictionary entries: some Sequence<(key: String, value: String)>) throws(SecretServiceFailure) {
        let entries = Array(entries)
        try onBus { () throws(BusFailure) in try message.append(dictionary: entries) }
    }

    /// Writes a container of `type` (`a`, `r`, `e`, `v`) holding `contents`,
    /// whose elements `body` appends.
    func container(
        _ type: Character, _ contents: String, _ body: () throws(SecretServiceFailure) -> Void
    ) throws(SecretServiceFailure) {
        try onBus { () throws(BusFailure) in try message.openContainer(type, contents) }
        try body()
        try onBus { () throws(BusFailure) in try message.closeContainer() }
    }

    // MARK: Reading

    /// Reads a string (`s`) or object path (`o`).
    func readString(as type: Character = "s") throws(SecretServiceFailure) -> String {
        try onBus { () throws(BusFailure) in try message.readString(as: type) }
    }

    /// Reads a boolean (`b`).
    func readBool() throws(SecretServiceFailure) -> Bool {
        try onBus { () throws(BusFailure) in try message.readBool() }
    }

    /// Reads an unsigned 64-bit integer (`t`).
    func readUInt64() throws(SecretServiceFailure) -> UInt64 {
        try onBus { () throws(BusFailure) in try message.readUInt64() }
    }

    /// Reads an array of object paths (`ao`).
    func readObjectPaths() throws(SecretServiceFailure) -> [String] {
        try onBus { () throws(BusFailure) in try message.readObjectPaths() }
    }

    /// Reads a string dictionary (`a{ss}`).
    func readDictionary() throws(SecretServiceFailure) -> [String: String] {
        try onBus { () throws(BusFailure) in try message.readDictionary() }
    }

    /// Reads a byte array (`ay`) and passes its bytes, which live in the
    /// message, to `body`.
    func readBytes<R>(_ body: (UnsafeRawBufferPointer) throws(SecretServiceFailure) -> R) throws(SecretServiceFailure) -> R {
        try body(try onBus { () throws(BusFailure) in try message.readByteArray() })
    }

    /// Reads a container of `type` holding `contents` with `body`.
    func enter<R>(
        _ type: Character, _ contents: String, _ body: () throws(SecretServiceFailure) -> R
    ) throws(SecretServiceFailure) -> R {
        try onBus { () throws(BusFailure) in try message.enterContainer(type, contents) }
        let result = try body()
        try onBus { () throws(BusFailure) in try message.exitContainer() }
        return result
    }

    /// Reads a property dictionary (`a{sv}`): calls `body` with each name,
    /// positioned at its variant, which `body` must read or skip.
    func forEachProperty(_ body: (String) throws(SecretServiceFailure) -> Void) throws(SecretServiceFailure) {
        try forEachEntry("sv") { () throws(SecretServiceFailure) in try body(try readString()) }
    }

    /// Reads a dictionary (`a{…}`) whose entries hold `contents`: calls
    /// `body`, positioned at each entry's key, to read the entry whole.
    func forEachEntry(_ contents: String, _ body: () throws(SecretServiceFailure) -> Void) throws(SecretServiceFailure) {
        try enter("a", "{\(contents)}") { () throws(SecretServiceFailure) in
            while try onBus({ () throws(BusFailure) in try message.enterElement("e", contents) }) {
                try body()
                try onBus { () throws(BusFailure) in try message.exitContainer() }
            }
        }
    }

    /// Skips values of the given signature (e.g. `"o"`).
    func skip(_ types: String) throws(SecretServiceFailure) {
        try onBus { () throws(BusFailure) in try message.skip(types) }
    }
}

/// What `body` returns, its bus failure classified (``SecretServiceFailure/init(_:)``).
func onBus<R>(_ body: () throws(BusFailure) -> R) throws(SecretServiceFailure) -> R {
    do throws(BusFailure) {
        return try body()
    } catch {
        throw SecretServiceFailure(error)
    }
}

/// The bus connection's calls in the protocol's terms.
extension BusConnection {

    /// A new call to `member` of `interface` at `path` of `destination`,
    /// which may start the service by D-Bus activation only when
    /// `activating` (the first call of a connection).
    func methodCall(
        to destination: String, _ path: String, _ interface: String, _ member: String, activating: Bool = false
    ) throws(SecretServiceFailure) -> ServiceMessage {
        ServiceMessage(try onBus { () throws(BusFailure) in
            try activating
                ? methodCall(destination, path, interface, member) : serviceCall(destination, path, interface, member)
        })
    }

    /// The reply to `message` (see ``call(_:whileItTravels:)-(BusMessage,_)``).
    func call(_ message: ServiceMessage, whileItTravels work: () -> Void = {}) throws(SecretServiceFailure) -> ServiceMessage {
        ServiceMessage(try onBus { () throws(BusFailure) in try call(message.message, whileItTravels: work) })
    }

    /// Sends `message`, then awaits a signal matching `rule` (see
    /// ``call(_:thenAwait:atMost:)-(BusMessage,_,_)``).
    func call(
        _ message: ServiceMessage, thenAwait rule: String, atMost limit: UInt64
    ) throws(SecretServiceFailure) -> ServiceMessage? {
        try onBus { () throws(BusFailure) in try call(message.message, thenAwait: rule, atMost: limit) }.map(ServiceMessage.init)
    }
}
