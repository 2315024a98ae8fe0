// SPDX-License-Identifier: MIT
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
package final class SignalQueue<Element: Equatable>: BusSignalReceiver {

    private let capacity: Int
    private let overflow: Element
    private let element: (ReceivedSignal) -> Element?
    private let collapsible: (Element) -> Bool
    private var pending: [Element] = []

    package init(
        capacity: Int, overflow: Element, collapsible: @escaping (Element) -> Bool = { _ in false },
        element: @escaping (ReceivedSignal) -> Element?
    ) {
        self.capacity = capacity
        self.overflow = overflow
        self.collapsible = collapsible
        self.element = element
    }

    /// Compares with `Element`'s own `==` and walks `pending` by index:
    /// nothing here asks the runtime for a conformance of a generic type
    /// (`Element?: Equatable`, `[Element]: Sequence`). That lookup, made by
    /// two threads at once inside sd-bus callbacks, left both waiting
    /// forever in the Swift 6.3 runtime's once_slow (swift_getWitnessTable:
    /// seen twice, once under AddressSanitizer and once against the fake
    /// as oo7).
    package func receive(_ signal: ReceivedSignal) {
        guard let element = element(signal) else { return }
        let count = pending.count
        if count > 0 && pending[count - 1] == element { return }
        if collapsible(element) {
            var index = 0
            while index < count {
                if pending[index] == element { return }
                index += 1
            }
        }
        if count >= capacity {
            pending = [overflow]
            return
        }
        pending.append(element)
    }

    /// The elements received since the last call.
    package func take() -> [Element] {
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }
}
