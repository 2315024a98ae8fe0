/// The signals a connection subscribed to, each turned into an `Element`
/// as it arrives (or dropped, when that gives `nil`), kept in order until
/// the connection's owner takes them.
///
/// An element equal to the last one pending is dropped: KeePassXC repeats
/// each item signal dozens of times (on the collection's path and the
/// alias's, ~50 signals for one store), which would otherwise fill the
/// queue. An element `collapsible` says so of is dropped when an equal one
/// is pending anywhere (signals anyone may send: a flood of them costs one
/// element each of the few they can name). Bounded: past `capacity`
/// pending elements, they collapse into one `overflow` element (for example
/// "anything may have changed").
final class SignalQueue<Element: Equatable>: BusSignalReceiver {

    private let capacity: Int
    private let overflow: Element
    private let element: (ReceivedSignal) -> Element?
    private let collapsible: (Element) -> Bool
    private var pending: [Element] = []

    init(
        capacity: Int, overflow: Element, collapsible: @escaping (Element) -> Bool = { _ in false },
        element: @escaping (ReceivedSignal) -> Element?
    ) {
        self.capacity = capacity
        self.overflow = overflow
        self.collapsible = collapsible
        self.element = element
        // The runtime's witness table for `Element?: Equatable`, which
        // `receive` needs, made now, on the thread that opens the
        // connection: two threads making it at once inside sd-bus callbacks
        // both waited forever in the Swift runtime's once_slow (seen once,
        // under AddressSanitizer, in swift_getWitnessTable).
        _ = Optional<Element>.none == Optional<Element>.none
    }

    func receive(_ signal: ReceivedSignal) {
        guard let element = element(signal), element != pending.last else { return }
        if collapsible(element) && pending.contains(element) { return }
        if pending.count >= capacity {
            pending = [overflow]
            return
        }
        pending.append(element)
    }

    /// The elements received since the last call.
    func take() -> [Element] {
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }
}
