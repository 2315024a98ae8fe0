// SPDX-License-Identifier: MIT
import KeychainKitBus

/// The names of the Secret Service protocol and of the bus that carries it,
/// written once (as libsecret's `secret-private.h` does). See the
/// freedesktop Secret Service API specification.
enum SecretServiceNames {

    /// The well-known bus name a Secret Service provider owns.
    static let busName = "org.freedesktop.secrets"

    /// The object path of the service object.
    static let servicePath = "/org/freedesktop/secrets"

    /// The object path of the collection that `alias` (e.g. `default`, `session`) names.
    static func aliasPath(_ alias: String) -> String { "\(servicePath)/aliases/\(alias)" }

    /// The object path meaning "none" (for example, no prompt is needed).
    static let noObject = "/"

    /// Whether `path` names an object of the service: one below
    /// ``servicePath`` (its collections, items, sessions and prompts).
    static func isServiceObject(_ path: String) -> Bool {
        path.utf8.count > servicePath.utf8.count + 1 && path.hasPrefix(servicePath + "/")
    }

    /// Throws a server fault unless every path names an object of the service.
    static func requireServiceObjects(_ paths: [String]) throws(SecretServiceFailure) {
        for path in paths where !isServiceObject(path) {
            throw SecretServiceFailure.serverFault("answered with the object path '\(path)', which is not below \(servicePath)")
        }
    }

    enum Service {
        static let interface = "org.freedesktop.Secret.Service"
        static let openSession = "OpenSession"
        static let searchItems = "SearchItems"
        static let getSecrets = "GetSecrets"
        static let readAlias = "ReadAlias"
        static let unlock = "Unlock"
        static let lock = "Lock"
        static let collectionsProperty = "Collections"
        static let collectionDeleted = "CollectionDeleted"
    }

    enum Collection {
        static let interface = "org.freedesktop.Secret.Collection"
        static let createItem = "CreateItem"
        static let itemCreated = "ItemCreated"
        static let itemDeleted = "ItemDeleted"
        static let itemChanged = "ItemChanged"
        static let itemsProperty = "Items"
        static let lockedProperty = "Locked"
    }

    enum Item {
        static let interface = "org.freedesktop.Secret.Item"
        static let getSecret = "GetSecret"
        static let setSecret = "SetSecret"
        static let delete = "Delete"
        static let labelProperty = "org.freedesktop.Secret.Item.Label"
        static let attributesProperty = "org.freedesktop.Secret.Item.Attributes"
        static let modified = "Modified"
        static let created = "Created"
        static let attributes = "Attributes"
        static let label = "Label"
        static let locked = "Locked"
    }

    /// KeychainKit's own signal: `Item.SetSecret` makes the services send
    /// nothing, so after updating an item in place a writer announces it.
    enum Changes {
        static let path = "/io/github/keychainkit"
        static let interface = "io.github.keychainkit.Changes"
        /// `SecretChanged(o item)`: the item's secret was replaced in place.
        static let secretChanged = "SecretChanged"
    }

    enum Session {
        static let interface = "org.freedesktop.Secret.Session"
        static let close = "Close"
    }

    /// gnome-keyring's private interface on the service object, which
    /// seahorse uses and oo7-daemon also implements: a collection unlocked
    /// with its password, no dialog.
    enum MasterPassword {
        static let interface = "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface"
        static let unlock = "UnlockWithMasterPassword"
    }

    enum Prompt {
        static let interface = "org.freedesktop.Secret.Prompt"
        static let prompt = "Prompt"
        static let dismiss = "Dismiss"
        static let completed = "Completed"
    }

    /// Transfer-session algorithms, preferred first.
    enum Algorithm {
        static let encrypted = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
        static let plain = "plain"
    }

    /// The attributes that identify a key, shared with Python `keyring`,
    /// go-keyring and keyring-rs, and libsecret's schema attribute.
    enum Attribute {
        static let service = ItemSchema.keychainKitPassword.attributeNames[0]
        static let account = ItemSchema.keychainKitPassword.attributeNames[1]
        static let schema = ItemSchema.schemaAttribute
    }

    /// Error names the Secret Service and the bus answer with.
    enum Error {
        static let isLocked = "org.freedesktop.Secret.Error.IsLocked"
        static let noSession = "org.freedesktop.Secret.Error.NoSession"
        static let noSuchObject = "org.freedesktop.Secret.Error.NoSuchObject"
        static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
    }

    /// The bus's own names (``BusNames``): the bus daemon, its errors and
    /// the standard interfaces.
    typealias BusError = BusNames.BusError
    typealias Bus = BusNames.Bus
    typealias Introspectable = BusNames.Introspectable
    typealias Peer = BusNames.Peer
    typealias Properties = BusNames.Properties

    /// The rules of ``changeMatchRules`` and KeychainKit's own
    /// ``Changes/secretChanged``: what a watcher of changes made elsewhere hears.
    static let outsideChangeMatchRules = changeMatchRules + ["type='signal',interface='\(Changes.interface)'"]

    /// The bus match rules for every signal that can change what a search
    /// finds: the Service and Collection interfaces' signals (items and
    /// collections created, changed, deleted) and a change of the service's
    /// owner.
    static let changeMatchRules = [
        "type='signal',interface='\(Service.interface)'",
        "type='signal',interface='\(Collection.interface)'",
        "type='signal',sender='\(Bus.name)',interface='\(Bus.interface)',"
            + "member='\(Bus.nameOwnerChanged)',arg0='\(busName)'",
    ]
}
