// SPDX-License-Identifier: MIT
import KeychainKitAPI

/// `async` forms of every operation, chosen by the compiler in an `async`
/// context. Each runs the backend's blocking call on the global concurrent
/// executor, never on the caller's actor (a read waiting on D-Bus, or on an
/// unlock prompt, does not block the main actor). A task already cancelled
/// throws ``KeychainError/userCanceled`` without calling the backend; a
/// call in progress is not interrupted (each is bounded by the backend's
/// timeouts).
extension KeychainProtocol {

    /// The `async` form of ``value(forKey:)``.
    public func value(forKey key: KeychainAttributes) async throws(KeychainError) -> String? {
        try await offTheCallersActor { () throws(KeychainError) in try self.value(forKey: key) }
    }

    /// The `async` form of ``data(forKey:)``.
    public func data(forKey key: KeychainAttributes) async throws(KeychainError) -> [UInt8]? {
        try await offTheCallersActor { () throws(KeychainError) in try self.data(forKey: key) }
    }

    /// The `async` form of ``contains(_:)``.
    public func contains(_ key: KeychainAttributes) async throws(KeychainError) -> Bool {
        try await offTheCallersActor { () throws(KeychainError) in try self.contains(key) }
    }

    /// The `async` form of ``updateValue(_:forKey:)``.
    public func updateValue(_ value: String, forKey key: KeychainAttributes) async throws(KeychainError) {
        try await offTheCallersActor { () throws(KeychainError) in try self.updateValue(value, forKey: key) }
    }

    /// The `async` form of ``updateData(_:forKey:)``.
    public func updateData(_ value: [UInt8], forKey key: KeychainAttributes) async throws(KeychainError) {
        try await offTheCallersActor { () throws(KeychainError) in try self.updateData(value, forKey: key) }
    }

    /// The `async` form of ``removeValue(forKey:)``.
    public func removeValue(forKey key: KeychainAttributes) async throws(KeychainError) {
        try await offTheCallersActor { () throws(KeychainError) in try self.removeValue(forKey: key) }
    }

    /// The `async` form of ``accounts(inService:)``.
    public func accounts(inService service: String) async throws(KeychainError) -> [String] {
        try await offTheCallersActor { () throws(KeychainError) in try self.accounts(inService: service) }
    }

    /// The `async` form of ``value(for:)``.
    public func value<Value: Sendable>(for key: KeychainKey<Value>) async throws(KeychainError) -> Value? {
        try await offTheCallersActor { () throws(KeychainError) in try self.value(for: key) }
    }

    /// The `async` form of ``set(_:for:)``.
    public func set<Value: Sendable>(_ value: Value?, for key: KeychainKey<Value>) async throws(KeychainError) {
        try await offTheCallersActor { () throws(KeychainError) in try self.set(value, for: key) }
    }
}

/// Runs `body` on the global concurrent executor, unless the task is
/// already cancelled.
@concurrent
private func offTheCallersActor<Result: Sendable>(
    _ body: @Sendable () throws(KeychainError) -> Result
) async throws(KeychainError) -> Result {
    if Task.isCancelled { throw .userCanceled }
    return try body()
}
