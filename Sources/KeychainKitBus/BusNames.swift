// SPDX-License-Identifier: MIT
/// The names of D-Bus itself, written once: the bus daemon, the errors it
/// and peers answer with, and the standard interfaces every object has.
/// The Secret Service's own names are the protocol client's
/// (`SecretServiceNames`), which refers to these.
package enum BusNames {

    /// Error names of the bus daemon and of D-Bus peers in general.
    package enum BusError {
        package static let failed = "org.freedesktop.DBus.Error.Failed"
        package static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        package static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"
        package static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
        package static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
        package static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        package static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        package static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
        package static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
        package static let authFailed = "org.freedesktop.DBus.Error.AuthFailed"
        package static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
        package static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        package static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        /// The bus daemon's, when the callee left the bus without answering;
        /// also sd-bus's own, with ``timedOutMessage``, when a call's time is up.
        package static let noReply = "org.freedesktop.DBus.Error.NoReply"
        /// The message sd-bus gives its own ``noReply`` at a call's timeout.
        package static let timedOutMessage = "Method call timed out"
        package static let noServer = "org.freedesktop.DBus.Error.NoServer"
        package static let timeout = "org.freedesktop.DBus.Error.Timeout"
        package static let timedOut = "org.freedesktop.DBus.Error.TimedOut"
        /// The prefix of the bus daemon's failures to activate a service.
        package static let spawnPrefix = "org.freedesktop.DBus.Error.Spawn."
        /// The names sd-bus gives to local errnos (see
        /// sd_bus_error_set_errno): failures of ours, not the peer's.
        package static let localErrnoNames: Set<String> = [
            "org.freedesktop.DBus.Error.NoMemory", "org.freedesktop.DBus.Error.InvalidArgs",
            "org.freedesktop.DBus.Error.FileNotFound", "org.freedesktop.DBus.Error.FileExists",
            "org.freedesktop.DBus.Error.IOError", "org.freedesktop.DBus.Error.BadAddress",
            "org.freedesktop.DBus.Error.LimitsExceeded", "org.freedesktop.DBus.Error.AddressInUse",
            "org.freedesktop.DBus.Error.InconsistentMessage",
        ]
    }

    /// The message bus itself.
    package enum Bus {
        package static let name = "org.freedesktop.DBus"
        package static let path = "/org/freedesktop/DBus"
        package static let interface = "org.freedesktop.DBus"
        package static let getID = "GetId"
        package static let getNameOwner = "GetNameOwner"
        package static let getConnectionUnixProcessID = "GetConnectionUnixProcessID"
        package static let nameOwnerChanged = "NameOwnerChanged"
        package static let nameLost = "NameLost"
    }

    package enum Introspectable {
        package static let interface = "org.freedesktop.DBus.Introspectable"
        package static let introspect = "Introspect"
    }

    package enum Peer {
        package static let interface = "org.freedesktop.DBus.Peer"
        package static let ping = "Ping"
    }

    package enum Properties {
        package static let interface = "org.freedesktop.DBus.Properties"
        package static let get = "Get"
        package static let getAll = "GetAll"
        package static let set = "Set"
        package static let propertiesChanged = "PropertiesChanged"
    }
}
