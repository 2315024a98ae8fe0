// SPDX-License-Identifier: MIT

/// Work read ahead of doing it, one first-in first-out queue per sender,
/// taken one element per sender in turn: a sender that sends thousands of
/// calls at once delays another's call by about one round of the senders
/// with work, not by its whole backlog. A server reads calls into it as
/// they arrive and answers them in ``nextRound()``'s order.
///
/// Bounded, so that reading ahead cannot be made to hold without limit:
/// ``admit(_:from:bytes:)`` refuses an element that would take its sender
/// past ``FairQueueLimits/callsPerSender`` or ``FairQueueLimits/bytesPerSender`` (a sender's
/// first element is always admitted, whatever its size); and ``isFull``
/// tells the reader to stop reading until a round has been taken, once
/// all senders together hold ``FairQueueLimits/calls`` or ``FairQueueLimits/bytes``.
package struct FairQueue<Element> {

    package let limits: FairQueueLimits
    /// The senders with work, in the order their turns come.
    private var turns: [String] = []
    private var waiting: [String: (elements: [(Element, Int)], first: Int, bytes: Int)] = [:]
    /// Elements waiting in all, and their bytes.
    package private(set) var count = 0
    package private(set) var bytes = 0

    package init(limits: FairQueueLimits) {
        self.limits = limits
    }

    /// Nothing is waiting.
    package var isEmpty: Bool { count == 0 }

    /// All senders together hold as much as the limits allow: read no
    /// more until a round has been taken.
    package var isFull: Bool { count >= limits.calls || bytes >= limits.bytes }

    /// Queues `element` behind `sender`'s others; `false` (and nothing
    /// queued) when it would take `sender` past its share.
    package mutating func admit(_ element: Element, from sender: String, bytes size: Int) -> Bool {
        if let queue = waiting[sender] {
            let held = queue.elements.count - queue.first
            guard held < limits.callsPerSender, queue.bytes + size <= limits.bytesPerSender else { return false }
            waiting[sender]!.elements.append((element, size))
            waiting[sender]!.bytes += size
        } else {
            waiting[sender] = ([(element, size)], 0, size)
            turns.append(sender)
        }
        count += 1
        bytes += size
        return true
    }

    /// The next element of each sender with work, in turn; the senders
    /// with more go to the back of the line, in the same order.
    package mutating func nextRound() -> [Element] {
        var round: [Element] = []
        round.reserveCapacity(turns.count)
        var next: [String] = []
        for sender in turns {
            var queue = waiting.removeValue(forKey: sender)!
            let (element, size) = queue.elements[queue.first]
            round.append(element)
            queue.first += 1
            queue.bytes -= size
            count -= 1
            bytes -= size
            if queue.first < queue.elements.count {
                if queue.first >= 64 && queue.first * 2 >= queue.elements.count {
                    queue.elements.removeFirst(queue.first)
                    queue.first = 0
                }
                waiting[sender] = queue
                next.append(sender)
            }
        }
        turns = next
        return round
    }

    /// Drops what `sender` has waiting (a sender that has left).
    package mutating func discard(from sender: String) {
        guard let queue = waiting.removeValue(forKey: sender) else { return }
        count -= queue.elements.count - queue.first
        bytes -= queue.bytes
        turns.removeAll { $0 == sender }
    }
}

/// How much a ``FairQueue`` holds at most.
package struct FairQueueLimits: Sendable {
    /// Elements waiting from one sender.
    package var callsPerSender: Int
    /// Their bytes, as the reader counts them.
    package var bytesPerSender: Int
    /// Elements waiting in all.
    package var calls: Int
    /// Their bytes.
    package var bytes: Int

    package init(callsPerSender: Int, bytesPerSender: Int, calls: Int, bytes: Int) {
        self.callsPerSender = callsPerSender
        self.bytesPerSender = bytesPerSender
        self.calls = calls
        self.bytes = bytes
    }
}
