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

    /// Error names of the bus daemon and of D-Bus peers in general.
    enum BusError {
        static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
        static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
        static let authFailed = "org.freedesktop.DBus.Error.AuthFailed"
        static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
        static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        /// The bus daemon's, when the callee left the bus without answering;
        /// also sd-bus's own, with ``timedOutMessage``, when a call's time is up.
        static let noReply = "org.freedesktop.DBus.Error.NoReply"
        /// The message sd-bus gives its own ``noReply`` at a call's timeout.
        static let timedOutMessage = "Method call timed out"
        static let noServer = "org.freedesktop.DBus.Error.NoServer"
        static let timeout = "org.freedesktop.DBus.Error.Timeout"
        static let timedOut = "org.freedesktop.DBus.Error.TimedOut"
        /// The prefix of the bus daemon's failures to activate a service.
        static let spawnPrefix = "org.freedesktop.DBus.Error.Spawn."
        /// The names sd-bus gives to local errnos (see
        /// sd_bus_error_set_errno): failures of ours, not the peer's.
        static let localErrnoNames: Set<String> = [
            "org.freedesktop.DBus.Error.NoMemory", "org.freedesktop.DBus.Error.InvalidArgs",
            "org.freedesktop.DBus.Error.FileNotFound", "org.freedesktop.DBus.Error.FileExists",
            "org.freedesktop.DBus.Error.IOError", "org.freedesktop.DBus.Error.BadAddress",
            "org.freedesktop.DBus.Error.LimitsExceeded", "org.freedesktop.DBus.Error.AddressInUse",
            "org.freedesktop.DBus.Error.InconsistentMessage",
        ]
    }

    /// The message bus itself.
    enum Bus {
        static let name = "org.freedesktop.DBus"
        static let path = "/org/freedesktop/DBus"
        static let interface = "org.freedesktop.DBus"
        static let getID = "GetId"
        static let getNameOwner = "GetNameOwner"
        static let nameOwnerChanged = "NameOwnerChanged"
    }

    enum Introspectable {
        static let interface = "org.freedesktop.DBus.Introspectable"
        static let introspect = "Introspect"
    }

    enum Properties {
        static let interface = "org.freedesktop.DBus.Properties"
        static let get = "Get"
        static let getAll = "GetAll"
        static let set = "Set"
    }

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
