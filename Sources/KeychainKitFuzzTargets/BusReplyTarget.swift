// SPDX-License-Identifier: MIT
import KeychainKitCore
import KeychainKitSecretServiceBackend
import KeychainKitSystem

/// The Secret Service backend against a service whose every answer the
/// input writes (``ScriptedBus``, ``ReplyScript``): D-Bus replies as the
/// protocol client reads them, over a real sd-bus connection. The first
/// byte picks the operation: read, write, delete or list, for the key
/// (svc, alice). Checked for every input:
/// - no crash, and every operation ends (each is bounded by its timeout);
/// - a read returns a secret only as the service served it for an item
///   whose attributes, as served, held service=svc and username=alice
///   (the client verifies what a search found, byte for byte);
/// - a listing of svc names only accounts that some item was served with,
///   beside service=svc.
@_cdecl("kk_fuzz_bus_replies")
public func fuzzBusReplies(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let bus = BusReplyFuzzing.bus else { FuzzCheck.fail("the scripted bus could not listen") }
    let script = ReplyScript(FuzzInput.bytes(data, size))
    let operation = script.next()
    let exchange = bus.expect(script)
    FuzzTrace.say("operation \(operation % 5)")
    run(operation, against: bus.address, served: exchange.served)
    FuzzCheck.require(bus.finish(seconds: 10), "the client kept its connection after its keychain was released")
    return 0
}

/// Runs operation `operation % 5` on a fresh backend at `address`, checking
/// its result against what was `served`; the backend is released on return.
private func run(_ operation: UInt8, against address: String, served: Served) {
    let keychain = SecretServiceKeychainInterface(
        busAddress: address, timeout: .milliseconds(250), prompts: .allowed, promptTimeout: .milliseconds(20))
    let key = KeychainAttributes(account: "alice", service: "svc")
    switch operation % 5 {
    case 0:
        let result = Result { () throws(KeychainError) in try keychain.readItem(key) }
        FuzzTrace.say("read: \(result); served attributes \(served.attributes), secrets \(served.secrets)")
        if case let .success(value?) = result {
            // A secret served encrypted decrypts to bytes nobody served,
            // shorter by its padding (or empty, as an empty one is read):
            // only its item and length are checked.
            let verified = served.secrets.contains { secret in
                (secret.encrypted ? value.count <= secret.bytes.count : secret.bytes == value)
                    && served.served(secret.path, service: "svc", username: "alice")
            }
            FuzzCheck.require(verified, "a secret was returned that no item verified as (svc, alice) was served with")
        }
    case 1:
        _ = try? keychain.insertItem(key, value: Array("new".utf8))
    case 2:
        _ = try? keychain.updateItem(key, value: Array("newer".utf8))
    case 3:
        _ = try? keychain.deleteItem(key)
    default:
        if let accounts = try? keychain.accounts(inService: "svc") {
            for account in accounts {
                let named = served.attributes.keys.contains { served.served($0, service: "svc", username: account) }
                FuzzCheck.require(named, "a listing named an account no item of svc was served with")
            }
        }
    }
}

/// The one scripted bus of the process, listening from the first input on.
enum BusReplyFuzzing {
    static let bus = ScriptedBus()?.start()
}
