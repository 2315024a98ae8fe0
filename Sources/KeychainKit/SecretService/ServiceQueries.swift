import CSDBus

/// The Secret Service calls that need no transfer session, shared by the
/// backend's connection and the watcher of changes made elsewhere.
extension BusConnection {

    private typealias Names = SecretServiceNames

    /// A new call to `member` of `interface` at `path` of the service at
    /// `destination`, which must not start another service process.
    func serviceCall(
        _ destination: String, _ path: String, _ interface: String, _ member: String
    ) throws(SecretServiceFailure) -> BusMessage {
        let message = try methodCall(destination, path, interface, member)
        _ = sd_bus_message_set_auto_start(message.raw, 0)
        return message
    }

    /// The items whose attributes include `attributes`, in every collection:
    /// those readable now, and those in locked collections.
    func searchItems(
        _ attributes: some Sequence<(key: String, value: String)>, at destination: String
    ) throws(SecretServiceFailure) -> (unlocked: [String], locked: [String]) {
        let request = try serviceCall(destination, Names.servicePath, Names.Service.interface, Names.Service.searchItems)
        try request.append(dictionary: attributes)
        let reply = try call(request)
        return (try reply.readObjectPaths(), try reply.readObjectPaths())
    }

    /// The reply `(v)` to getting the item property `name` of the item at `path`.
    func itemProperty(
        _ name: String, at path: String, of destination: String
    ) throws(SecretServiceFailure) -> BusMessage {
        let request = try serviceCall(destination, path, Names.Properties.interface, Names.Properties.get)
        try request.append(Names.Item.interface)
        try request.append(name)
        return try call(request)
    }

    /// The attributes of the item at `path`; `nil` when it no longer exists.
    func itemAttributes(at path: String, of destination: String) throws(SecretServiceFailure) -> [String: String]? {
        let reply: BusMessage
        do throws(SecretServiceFailure) {
            reply = try itemProperty(Names.Item.attributes, at: path, of: destination)
        } catch let failure where failure.error == .itemNotFound {
            return nil
        }
        return try reply.enter("v", "a{ss}") { () throws(SecretServiceFailure) in try reply.readDictionary() }
    }

    /// The unique name of the process that owns the bus name `name`;
    /// `nil` when none does.
    func owner(of name: String) throws(SecretServiceFailure) -> String? {
        let bus = Names.Bus.self
        let request = try methodCall(bus.name, bus.path, bus.interface, bus.getNameOwner)
        try request.append(name)
        do throws(SecretServiceFailure) {
            return try call(request).readString()
        } catch let failure where failure.remoteName == "org.freedesktop.DBus.Error.NameHasNoOwner" {
            return nil
        }
    }
}
