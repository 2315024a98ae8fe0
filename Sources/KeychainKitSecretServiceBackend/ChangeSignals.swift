// SPDX-License-Identifier: MIT
import KeychainKitBus
import KeychainKitSecretService

/// What the Secret Service's change signals mean to a connection's
/// ``ItemPathCache``.
enum ChangeSignals {

    /// A queue of the changes signalled by the service process `senders`
    /// names (others are dropped: see ``ServiceSignal``), collapsing past
    /// 64 into ``ItemPathCache/Change/everything``.
    static func queue(trusting senders: SignalSenders) -> SignalQueue<ItemPathCache.Change> {
        SignalQueue(capacity: 64, overflow: .everything) { message in
            ServiceSignal(message, senders: senders).flatMap(change)
        }
    }

    private static func change(_ signal: ServiceSignal) -> ItemPathCache.Change? {
        switch signal {
        case let .itemCreated(path): .itemCreated(path: path)
        case let .itemDeleted(path): .itemDeleted(path: path)
        case let .itemChanged(path): .itemChanged(path: path)
        case .secretChanged: nil  // not subscribed to: an update in place leaves paths as they are
        case .collectionDeleted, .collectionsChanged, .ownerChanged: .everything
        }
    }
}
