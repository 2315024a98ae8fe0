/// The key of a keychain item: an account within a service.
///
/// On the Secret Service the pair is stored as the attributes `service` and
/// `username`, the names Python `keyring`, go-keyring and keyring-rs share.
public struct KeychainAttributes: Equatable, ExpressibleByStringLiteral, Hashable, Sendable {

    /// The service used when none is given: the process name.
    public static let defaultService: String = ProcessName.current

    /// The account name of the item.
    public let account: String

    /// The service the item belongs to.
    public let service: String

    /// Creates attributes for the given account and service.
    public init(account: String, service: String = KeychainAttributes.defaultService) {
        self.account = account
        self.service = service
    }

    /// Creates attributes for the account `value` in the default service.
    public init(stringLiteral value: String) {
        self.init(account: value)
    }

    /// Why these attributes cannot address an item, or `nil` when they can.
    ///
    /// The account and the service must be non-empty and free of NUL
    /// characters (the Secret Service stores attributes as D-Bus strings).
    public var invalidReason: String? {
        if account.isEmpty { return "the account is empty" }
        if service.isEmpty { return "the service is empty" }
        if account.utf8.contains(0) { return "the account contains a NUL character" }
        if service.utf8.contains(0) { return "the service contains a NUL character" }
        return nil
    }

    /// Two keys are equal when their UTF-8 bytes are: the Secret Service,
    /// `secret-tool` and Python `keyring` compare bytes, so "é" (U+00E9) and
    /// "e" + U+0301 are two keys, although Swift strings call them equal.
    public static func == (lhs: KeychainAttributes, rhs: KeychainAttributes) -> Bool {
        lhs.account.utf8.elementsEqual(rhs.account.utf8) && lhs.service.utf8.elementsEqual(rhs.service.utf8)
    }

    /// Hashes the UTF-8 bytes, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        for part in [account, service] {
            hasher.combine(part.utf8.count)
            for byte in part.utf8 { hasher.combine(byte) }
        }
    }

    /// Throws ``KeychainError/invalidArgument`` when ``invalidReason`` is set.
    func validate() throws(KeychainError) {
        if invalidReason != nil { throw .invalidArgument }
    }
}
