import CSDBus

/// Turns the Secret Service's change signals into ``ItemPathCache/Change``s,
/// in the order they arrived, until the connection's owner takes them.
///
/// Bounded: past ``capacity`` pending changes, they collapse into one
/// ``ItemPathCache/Change/everything``.
final class ChangeSignals: BusSignalReceiver {

    static let capacity = 64

    private var pending: [ItemPathCache.Change] = []

    func receive(_ signal: OpaquePointer) {
        if pending.count >= Self.capacity {
            pending = [.everything]
            return
        }
        pending.append(Self.change(signal))
    }

    /// The changes received since the last call.
    func take() -> [ItemPathCache.Change] {
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }

    private static func change(_ signal: OpaquePointer) -> ItemPathCache.Change {
        let names = SecretServiceNames.Collection.self
        guard let interface = sd_bus_message_get_interface(signal), String(cString: interface) == names.interface,
              let member = sd_bus_message_get_member(signal).map({ String(cString: $0) })
        else { return .everything }
        guard let path = BusMessage.firstObjectPath(of: signal) else { return .everything }
        switch member {
        case names.itemCreated: return .itemCreated(path: path)
        case names.itemDeleted: return .itemDeleted(path: path)
        case names.itemChanged: return .itemChanged(path: path)
        default: return .everything
        }
    }
}
