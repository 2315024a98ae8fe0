/// The writes a Secret Service interface is making or has just made, so
/// that its keychain's watcher of changes made elsewhere does not report
/// them (the keychain reports its own writes itself).
///
/// A change signal names an item path, and may arrive on the watcher's
/// connection before the writer has its reply: the watcher holds a change
/// of a key being written until the write ends, then drops it when the
/// write touched that path. Paths stay "own" for ``echoWindow`` after the
/// write, since a server may announce one change several times (KWallet
/// sends each signal twice). A creation or change another process makes to
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

    private struct State {
        var writing: [KeychainAttributes: Int] = [:]
        var touched: [Touch: Deadline] = [:]
        var senders: Set<String> = []
    }

    private let state = Locked(State())

    /// Runs a write of `key`, during which changes to it are held.
    func write<R, Failure: Error>(_ key: KeychainAttributes, _ body: () throws(Failure) -> R) throws(Failure) -> R {
        state.withLock { $0.writing[key, default: 0] += 1 }
        defer {
            state.withLock { state in
                state.writing[key]! -= 1
                if state.writing[key] == 0 { state.writing[key] = nil }
            }
        }
        return try body()
    }

    /// Records that the write in progress created or changed (`deleted`:
    /// deleted) the item at `path`.
    func touched(_ path: String, deleted: Bool) {
        state.withLock { state in
            if state.touched.count >= 1024 { state.touched = state.touched.filter { $0.value.remaining != nil } }
            state.touched[Touch(path: path, deleted: deleted)] = Deadline(after: Self.echoWindowMicroseconds)
        }
    }

    /// Records the unique bus name our writes are sent from (our own
    /// ``SecretServiceNames/Changes`` signals carry it).
    func sending(as name: String) {
        state.withLock { state in
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
        state.withLock { state in
            if announced { return sender.map(state.senders.contains) == true ? .own : .outside }
            if state.touched[Touch(path: path, deleted: deleted)]?.remaining != nil { return .own }
            return state.writing[key] != nil ? .held : .outside
        }
    }
}
