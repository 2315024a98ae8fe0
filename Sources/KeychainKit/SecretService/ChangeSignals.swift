import CSDBus

/// The signals a connection subscribed to, each turned into an `Element`
/// as it arrives (or dropped, when that gives `nil`), kept in order until
/// the connection's owner takes them.
///
/// An element equal to the last one pending is dropped: KeePassXC repeats
/// each item signal dozens of times (on the collection's path and the
/// alias's, ~50 signals for one store), which would otherwise fill the
/// queue. Bounded: past `capacity` pending elements, they collapse into one
/// `overflow` element (for example "anything may have changed").
final class SignalQueue<Element: Equatable>: BusSignalReceiver {

    private let capacity: Int
    private let overflow: Element
    private let element: (OpaquePointer) -> Element?
    private var pending: [Element] = []

    init(capacity: Int, overflow: Element, element: @escaping (OpaquePointer) -> Element?) {
        self.capacity = capacity
        self.overflow = overflow
        self.element = element
    }

    func receive(_ signal: OpaquePointer) {
        guard let element = element(signal), element != pending.last else { return }
        if pending.count >= capacity {
            pending = [overflow]
            return
        }
        pending.append(element)
    }

    func overflowed() {
        pending = [overflow]
    }

    /// The elements received since the last call.
    func take() -> [Element] {
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }
}

/// What the Secret Service's change signals mean to a connection's
/// ``ItemPathCache``.
enum ChangeSignals {

    /// A queue of the changes signalled by the service process `senders`
    /// names (others are dropped: see ``SignalSenders``), collapsing past
    /// 64 into ``ItemPathCache/Change/everything``.
    static func queue(trusting senders: SignalSenders) -> SignalQueue<ItemPathCache.Change> {
        SignalQueue(capacity: 64, overflow: .everything) { change($0, senders) }
    }

    private static func change(_ signal: OpaquePointer, _ senders: SignalSenders) -> ItemPathCache.Change? {
        let names = SecretServiceNames.self
        guard let interface = sd_bus_message_get_interface(signal).map({ String(cString: $0) }),
              let member = sd_bus_message_get_member(signal).map({ String(cString: $0) })
        else { return nil }
        if interface == names.Bus.interface {
            // NameOwnerChanged of the service's name: believed from the bus only.
            return SignalSenders.fromBus(signal) ? .everything : nil
        }
        guard senders.fromService(signal) else { return nil }
        guard interface == names.Collection.interface, let path = BusMessage.firstObjectPath(of: signal) else {
            return .everything  // collections created, deleted, locked or unlocked
        }
        switch member {
        case names.Collection.itemCreated: return .itemCreated(path: path)
        case names.Collection.itemDeleted: return .itemDeleted(path: path)
        case names.Collection.itemChanged: return .itemChanged(path: path)
        default: return .everything
        }
    }
}
