// SPDX-License-Identifier: MIT
import KeychainKitBus
import KeychainKitCore

/// The names of the Secret Service protocol and of the bus that carries it,
/// written once (as libsecret's `secret-private.h` does). See the
/// freedesktop Secret Service API specification.
package enum SecretServiceNames {

    /// The well-known bus name a Secret Service provider owns.
    package static let busName = "org.freedesktop.secrets"

    /// The object path of the service object.
    package static let servicePath = "/org/freedesktop/secrets"

    /// The object path of the collection that `alias` (e.g. `default`, `session`) names.
    static func aliasPath(_ alias: String) -> String { "\(servicePath)/aliases/\(alias)" }

    /// The object path meaning "none" (for example, no prompt is needed).
    static let noObject = "/"

    /// Whether `path` names an object of the service: one below
    /// ``servicePath`` (its collections, items, sessions and prompts).
    package static func isServiceObject(_ path: String) -> Bool {
        path.utf8.count > servicePath.utf8.count + 1 && path.hasPrefix(servicePath + "/")
    }

    /// Throws a server fault unless every path names an object of the service.
    static func requireServiceObjects(_ paths: [String]) throws(SecretServiceFailure) {
        for path in paths where !isServiceObject(path) {
            throw SecretServiceFailure.serverFault("answered with the object path '\(path)', which is not below \(servicePath)")
        }
    }

    package enum Service {
        package static let interface = "org.freedesktop.Secret.Service"
        package static let openSession = "OpenSession"
        package static let searchItems = "SearchItems"
        package static let getSecrets = "GetSecrets"
        package static let readAlias = "ReadAlias"
        package static let unlock = "Unlock"
        package static let lock = "Lock"
        package static let collectionsProperty = "Collections"
        package static let collectionDeleted = "CollectionDeleted"
        package static let collectionCreated = "CollectionCreated"
        package static let collectionChanged = "CollectionChanged"
        package static let createCollection = "CreateCollection"
        package static let setAlias = "SetAlias"
    }

    package enum Collection {
        package static let interface = "org.freedesktop.Secret.Collection"
        package static let createItem = "CreateItem"
        package static let searchItems = "SearchItems"
        package static let delete = "Delete"
        package static let itemCreated = "ItemCreated"
        package static let itemDeleted = "ItemDeleted"
        package static let itemChanged = "ItemChanged"
        package static let itemsProperty = "Items"
        package static let lockedProperty = "Locked"
        /// The collection's `Label` as a property name (``label``), and as
        /// `CreateCollection` takes it, qualified.
        package static let label = "Label"
        package static let labelProperty = "org.freedesktop.Secret.Collection.Label"
        package static let created = "Created"
        package static let modified = "Modified"
    }

    package enum Item {
        package static let interface = "org.freedesktop.Secret.Item"
        package static let getSecret = "GetSecret"
        package static let setSecret = "SetSecret"
        package static let delete = "Delete"
        package static let labelProperty = "org.freedesktop.Secret.Item.Label"
        package static let attributesProperty = "org.freedesktop.Secret.Item.Attributes"
        package static let modified = "Modified"
        package static let created = "Created"
        package static let attributes = "Attributes"
        package static let label = "Label"
        package static let locked = "Locked"
    }

    /// KeychainKit's own signal: `Item.SetSecret` makes the services send
    /// nothing, so after updating an item in place a writer announces it.
    enum Changes {
        package static let path = "/io/github/keychainkit"
        package static let interface = "io.github.keychainkit.Changes"
        /// `SecretChanged(o item)`: the item's secret was replaced in place.
        package static let secretChanged = "SecretChanged"
    }

    package enum Session {
        package static let interface = "org.freedesktop.Secret.Session"
        package static let close = "Close"
    }

    /// The bus name gnome-keyring owns besides the service's (for its
    /// control interface): the process that owns both is gnome-keyring.
    package static let gnomeKeyringBusName = "org.gnome.keyring"

    /// gnome-keyring's private interface on the service object, which
    /// seahorse uses and oo7-daemon also implements: a collection unlocked
    /// with its password, no dialog.
    package enum MasterPassword {
        package static let interface = "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface"
        package static let unlock = "UnlockWithMasterPassword"
        /// gnome-keyring's answer to a wrong password.
        package static let denied = "org.gnome.keyring.Error.Denied"
        package static let create = "CreateWithMasterPassword"
        package static let change = "ChangeWithMasterPassword"
    }

    package enum Prompt {
        package static let interface = "org.freedesktop.Secret.Prompt"
        package static let prompt = "Prompt"
        package static let dismiss = "Dismiss"
        package static let completed = "Completed"
    }

    /// Transfer-session algorithms, preferred first.
    package enum Algorithm {
        package static let encrypted = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
        package static let plain = "plain"
    }

    /// The attributes that identify a key, shared with Python `keyring`,
    /// go-keyring and keyring-rs, and libsecret's schema attribute.
    package enum Attribute {
        package static let service = ItemSchema.keychainKitPassword.attributeNames[0]
        package static let account = ItemSchema.keychainKitPassword.attributeNames[1]
        package static let schema = ItemSchema.schemaAttribute
    }

    /// Error names the Secret Service and the bus answer with.
    package enum Error {
        package static let isLocked = "org.freedesktop.Secret.Error.IsLocked"
        package static let noSession = "org.freedesktop.Secret.Error.NoSession"
        package static let noSuchObject = "org.freedesktop.Secret.Error.NoSuchObject"
        package static let notSupported = BusNames.BusError.notSupported
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
    package static let outsideChangeMatchRules = changeMatchRules + ["type='signal',interface='\(Changes.interface)'"]

    /// The bus match rules for every signal that can change what a search
    /// finds: the Service and Collection interfaces' signals (items and
    /// collections created, changed, deleted) and a change of the service's
    /// owner.
    package static let changeMatchRules = [
        "type='signal',interface='\(Service.interface)'",
        "type='signal',interface='\(Collection.interface)'",
        "type='signal',sender='\(Bus.name)',interface='\(Bus.interface)',"
            + "member='\(Bus.nameOwnerChanged)',arg0='\(busName)'",
    ]
}
