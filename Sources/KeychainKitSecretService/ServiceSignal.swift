// SPDX-License-Identifier: MIT
import KeychainKitBus

/// What a signal about the Secret Service says, read from the message only
/// once its sender may send it (``SignalSenders``): the service's
/// `Service` and `Collection` signals from its current owner,
/// `NameOwnerChanged` from the bus daemon, and KeychainKit's own
/// `SecretChanged` from anyone (it cannot be authenticated: its readers
/// verify it).
package enum ServiceSignal: Equatable {
    case itemCreated(path: String)
    case itemChanged(path: String)
    case itemDeleted(path: String)
    /// A KeychainKit writer replaced the item's secret in place.
    case secretChanged(path: String)
    /// The collection went, its items with it (maybe without a signal each).
    case collectionDeleted(path: String)
    /// Another signal of the service: a collection created, changed
    /// (locked, unlocked), or an item signal without a readable path.
    case collectionsChanged
    /// `org.freedesktop.secrets` has a new owner (`nil`: none).
    case ownerChanged(String?)

    /// The signal `message` (borrowed) is, or `nil` when it is none of
    /// these or comes from a sender that may not send it. Follows a change
    /// of owner into `senders`.
    package init?(_ message: ReceivedSignal, senders: SignalSenders) {
        let names = SecretServiceNames.self
        guard let interface = message.interface, let member = message.member else { return nil }
        switch interface {
        case names.Changes.interface:
            guard member == names.Changes.secretChanged, let path = message.readObjectPath() else { return nil }
            self = .secretChanged(path: path)
        case names.Bus.interface:
            guard SignalSenders.fromBus(message), member == names.Bus.nameOwnerChanged else { return nil }
            // (name, old owner, new owner); the match rule names the name.
            guard message.readString() != nil, message.readString() != nil, let new = message.readString() else { return nil }
            let owner = new.isEmpty ? nil : new
            senders.serviceOwner = owner
            self = .ownerChanged(owner)
        case names.Collection.interface, names.Service.interface:
            guard senders.fromService(message) else { return nil }
            let path = message.readObjectPath()
            switch (member, path) {
            case let (names.Collection.itemCreated, path?): self = .itemCreated(path: path)
            case let (names.Collection.itemChanged, path?): self = .itemChanged(path: path)
            case let (names.Collection.itemDeleted, path?): self = .itemDeleted(path: path)
            case let (names.Service.collectionDeleted, path?): self = .collectionDeleted(path: path)
            default: self = .collectionsChanged
            }
        default:
            return nil
        }
    }
}
