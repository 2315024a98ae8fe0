// SPDX-License-Identifier: MIT
import KeychainKitBus

import Testing

/// The order and bounds of keychainkitd's waiting calls (the daemon's
/// suite floods it over a real bus: IntegrationTests/daemon).
@Suite("Fair queue")
struct FairQueueTests {

    /// A queue behind a reference, so that `#expect` can watch its calls.
    final class Line<Element> {
        var queue: FairQueue<Element>
        init(_ limits: FairQueueLimits) { queue = FairQueue(limits: limits) }
        func admit(_ element: Element, from sender: String, bytes: Int = 1) -> Bool {
            queue.admit(element, from: sender, bytes: bytes)
        }
        func round() -> [Element] { queue.nextRound() }
        func drain() -> [Element] {
            var taken: [Element] = []
            while !queue.isEmpty { taken += queue.nextRound() }
            return taken
        }
    }

    static let roomy = FairQueueLimits(callsPerSender: 100, bytesPerSender: 1000, calls: 1000, bytes: 10_000)

    @Test func eachSenderIsTakenInTurnAndInItsOwnOrder() {
        let line = Line<String>(Self.roomy)
        for n in 1...5 { #expect(line.admit("a\(n)", from: "a")) }
        #expect(line.admit("b1", from: "b"))
        #expect(line.admit("c1", from: "c"))
        #expect(line.round() == ["a1", "b1", "c1"])
        #expect(line.admit("b2", from: "b"))
        #expect(line.round() == ["a2", "b2"])
        #expect(line.drain() == ["a3", "a4", "a5"])
        #expect(line.queue.count == 0 && line.queue.bytes == 0)
        #expect(line.round().isEmpty)
    }

    @Test func aSenderPastItsShareIsRefusedAndOthersAreNot() {
        let line = Line<Int>(FairQueueLimits(callsPerSender: 3, bytesPerSender: 100, calls: 1000, bytes: 10_000))
        #expect((0..<5).map { line.admit($0, from: "flood") } == [true, true, true, false, false])
        #expect(line.admit(0, from: "other"))
        // Bytes: the first call is taken whatever its size, then none past the share.
        #expect(line.admit(0, from: "big", bytes: 500))
        #expect(!line.admit(1, from: "big"))
        #expect(line.admit(0, from: "half", bytes: 60))
        #expect(!line.admit(1, from: "half", bytes: 41))
        #expect(line.admit(1, from: "half", bytes: 40))
        #expect(line.queue.count == 7 && line.queue.bytes == 3 + 1 + 500 + 100)
        _ = line.round()  // one of each: room again
        #expect(line.admit(3, from: "flood"))
        #expect(line.admit(1, from: "big"))
    }

    @Test func fullWhenAllSendersTogetherReachTheTotal() {
        let line = Line<Int>(FairQueueLimits(callsPerSender: 10, bytesPerSender: 1000, calls: 4, bytes: 100))
        for sender in ["a", "b", "c"] { _ = line.admit(0, from: sender) }
        #expect(!line.queue.isFull)
        _ = line.admit(1, from: "a")
        #expect(line.queue.isFull)
        _ = line.round()
        #expect(!line.queue.isFull)
        _ = line.admit(0, from: "d", bytes: 100)
        #expect(line.queue.isFull)
    }

    @Test func aSenderThatLeftIsDropped() {
        let line = Line<String>(Self.roomy)
        for n in 1...3 { _ = line.admit("a\(n)", from: "a", bytes: 2) }
        _ = line.admit("b1", from: "b", bytes: 5)
        _ = line.round()
        line.queue.discard(from: "a")
        line.queue.discard(from: "nobody")
        #expect(line.queue.isEmpty && line.queue.bytes == 0)
        #expect(line.admit("a4", from: "a"))
        #expect(line.round() == ["a4"])
    }

    @Test func aLongBacklogKeepsItsOrderThroughCompaction() {
        let line = Line<Int>(Self.roomy)
        for n in 0..<100 { _ = line.admit(n, from: "a") }
        var taken: [Int] = []
        for n in 100..<150 {
            taken += line.round() + line.round()
            _ = line.admit(n, from: "a")
        }
        #expect(taken + line.drain() == Array(0..<150))
    }
}
