// SPDX-License-Identifier: MIT
import CSDBus
import KeychainKitSystem

/// The first message an sd-bus callback was given: the reply to a call, or
/// the first signal that matched an awaited rule.
package final class AwaitedMessage {
    package var message: BusMessage?
}

/// Keeps the first message given to it in the ``AwaitedMessage`` of
/// `userdata` (an sd-bus reply or match callback).
package func keepFirstMessage(
    _ message: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<sd_bus_error>?
) -> Int32 {
    guard let message, let userdata else { return 0 }
    let awaited = Unmanaged<AwaitedMessage>.fromOpaque(userdata).takeUnretainedValue()
    if awaited.message == nil { awaited.message = BusMessage(owning: sd_bus_message_ref(message)) }
    return 0
}
