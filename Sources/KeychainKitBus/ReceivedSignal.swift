// SPDX-License-Identifier: MIT
import CSDBus

/// A signal as the bus delivered it, borrowed for the duration of one
/// ``BusSignalReceiver/receive(_:)`` call: its header, and its first
/// arguments read in order. Reading never throws: a signal that is not of
/// the shape asked for reads as `nil`, and is dropped by its reader.
package struct ReceivedSignal {

    private let message: OpaquePointer

    package init(borrowing message: OpaquePointer) {
        self.message = message
    }

    /// The interface the signal belongs to.
    package var interface: String? { sd_bus_message_get_interface(message).map { String(cString: $0) } }

    /// The signal's name.
    package var member: String? { sd_bus_message_get_member(message).map { String(cString: $0) } }

    /// The unique bus name of the connection that sent it, as the bus
    /// daemon stamped it (a peer cannot choose it).
    package var sender: String? { sd_bus_message_get_sender(message).map { String(cString: $0) } }

    /// The longest object path a signal may name to be acted on: far beyond
    /// any service's item paths, short enough that queued signals stay small.
    package static let longestPath = 1024

    /// Reads the next argument as an object path; `nil` when it is none or
    /// longer than ``longestPath``.
    package func readObjectPath() -> String? {
        var path: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, CChar(bitPattern: UInt8(ascii: "o")), &path) > 0, let path,
              strnlen(path, Self.longestPath + 1) <= Self.longestPath else { return nil }
        return String(cString: path)
    }

    /// Reads the next argument as a string; `nil` when it is none.
    package func readString() -> String? {
        var string: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, CChar(bitPattern: UInt8(ascii: "s")), &string) > 0, let string else {
            return nil
        }
        return String(cString: string)
    }
}
