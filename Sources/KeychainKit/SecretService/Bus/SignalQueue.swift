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
