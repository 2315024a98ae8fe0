// SPDX-License-Identifier: MIT
import KeychainKitCore
import KeychainKitSystem

/// The writes a Secret Service interface is making or has just made, so
/// that its keychain's watcher of changes made elsewhere does not report
/// them (the keychain reports its own writes itself).
///
/// A change signal names an item path, and may arrive on the watcher's
/// connection before the writer has its reply: the watcher holds a change
/// of a key being written until the write ends, then drops it when the
/// write touched that path. Paths stay "own" for ``echoWindow`` after the
/// write — and until the watcher has twice read all its socket held, when
/// it was kept from reading for longer — since a server may announce one
/// change several times (KWallet sends each signal twice). A creation or change another process makes to
/// an item we just created or changed (a deletion of one we just deleted)
/// in that window goes unreported — the observer heard of ours —
/// unless a KeychainKit writer announced it (``SecretServiceNames/Changes``:
/// the sender tells whose it is).
final class OwnWrites: Sendable {

    /// How long after a write its path's signals are taken as its echoes.
    static let echoWindowMicroseconds: UInt64 = 250_000

    /// An item path, and whether it was deleted (or created or changed).
    private struct Touch: Hashable {
        let path: String
        let deleted: Bool
    }

    /// When an echo of a touch may still come: within the echo window, or
    /// up to the watcher's second catching-up with its socket after it.
    private struct Window {
        let until: Deadline
        let epoch: UInt64

        func covers(_ current: UInt64) -> Bool { until.remaining != nil || current <= epoch + 2 }
    }

    private struct State {
        /// The ``ForkGeneration`` this was recorded in: a fork()ed child's
        /// writes are its own, its parent's are not.
        var generation = ForkGeneration.current
        var writing: [KeychainAttributes: Int] = [:]
        var touched: [Touch: Window] = [:]
        var senders: Set<String> = []
        /// How many times a watcher has read everything its socket held.
        var epoch: UInt64 = 0
    }

    private let state = Locked(State())

    /// Runs `body` on the state of this process (a fork()ed child starts afresh).
    private func withState<R>(_ body: (inout State) -> R) -> R {
        state.withLock { state in
            if state.generation != ForkGeneration.current { state = State() }
            return body(&state)
        }
    }

    /// Runs a write of `key`, during which changes to it are held.
    func write<R, Failure: Error>(_ key: KeychainAttributes, _ body: () throws(Failure) -> R) throws(Failure) -> R {
        withState { $0.writing[key, default: 0] += 1 }
        defer {
            withState { state in
                state.writing[key, default: 1] -= 1
                if state.writing[key] == 0 { state.writing[key] = nil }
            }
        }
        return try body()
    }

    /// Records that the write in progress created or changed (`deleted`:
    /// deleted) the item at `path`.
    func touched(_ path: String, deleted: Bool) {
        withState { state in
            if state.touched.count >= 1024 {
                let epoch = state.epoch
                state.touched = state.touched.filter { $0.value.covers(epoch) }
            }
            state.touched[Touch(path: path, deleted: deleted)] =
                Window(until: Deadline(after: Self.echoWindowMicroseconds), epoch: state.epoch)
        }
    }

    /// Records that a watcher has read everything its socket held: the
    /// echoes of writes that ended before are behind it. A watcher slowed
    /// down (by a long callback) still takes the echoes it reads late for
    /// what they are.
    func caughtUp() {
        withState { $0.epoch += 1 }
    }

    /// Records the unique bus name our writes are sent from (our own
    /// ``SecretServiceNames/Changes`` signals carry it).
    func sending(as name: String) {
        withState { state in
            if state.senders.count >= 64 { state.senders.removeAll() }
            state.senders.insert(name)
        }
    }

    /// What a change to `path` of `key`, announced by `sender`, is to the watcher.
    enum Verdict {
        case own, held, outside
    }

    /// `announced`: the change is a KeychainKit writer's own announcement,
    /// which names its sender, so only ours are own.
    /// A deletion is an echo only of our deletion of that path, a creation
    /// or change only of our creation or change of it.
    func verdict(path: String, deleted: Bool, key: KeychainAttributes, sender: String?, announced: Bool) -> Verdict {
        withState { state in
            if announced { return sender.map(state.senders.contains) == true ? .own : .outside }
            if state.touched[Touch(path: path, deleted: deleted)]?.covers(state.epoch) == true { return .own }
            return state.writing[key] != nil ? .held : .outside
        }
    }
}
