import CKeychainKitSupport
import KeychainKit

/// The defaults of `kk_secret_service_options`, this header's version.
private var defaultOptions: kk_secret_service_options {
    kk_secret_service_options(
        version: UInt32(KK_SECRET_SERVICE_OPTIONS_VERSION), collection: nil, timeout_ms: 0,
        prompts: KK_PROMPT_AUTOMATIC, prompt_timeout_ms: 0, transfer: KK_TRANSFER_PREFER_ENCRYPTED)
}

/// The versions of `kk_secret_service_options` the library reads, with the
/// size of each: version 1 ends before `transfer`.
private func size(ofOptionsVersion version: UInt32) -> Int? {
    switch version {
    case 1: MemoryLayout<kk_secret_service_options>.offset(of: \.transfer)
    case UInt32(KK_SECRET_SERVICE_OPTIONS_VERSION): MemoryLayout<kk_secret_service_options>.size
    default: nil
    }
}

@c @implementation
public func kk_secret_service_options_init(
    _ options: UnsafeMutablePointer<kk_secret_service_options>?, _ version: UInt32
) -> kk_status {
    guard let options else { return fail(KK_EINVAL, "options is NULL") }
    guard let size = size(ofOptionsVersion: version) else { return fail(KK_EINVAL, "unknown options version \(version)") }
    // A version 1 struct is shorter: write no byte past its end.
    var defaults = defaultOptions
    defaults.version = version
    withUnsafeBytes(of: &defaults) { UnsafeMutableRawPointer(options).copyMemory(from: $0.baseAddress!, byteCount: size) }
    return KK_OK
}

@c @implementation
public func kk_open_secret_service_with(
    _ options: UnsafePointer<kk_secret_service_options>?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> kk_status {
    status { () throws(ArgumentFailure) in
        let interface = try secretServiceInterface(try read(options))
        return open(out) { Keychain(interface: interface) }
    }
}

@c @implementation
public func kk_transfer_encrypted(_ kc: OpaquePointer?, _ outEncrypted: UnsafeMutablePointer<Int32>?) -> kk_status {
    status { () throws(ArgumentFailure) in
        let handle = try handle(kc)
        guard let outEncrypted else { throw invalidArgument("out_encrypted is NULL") }
        guard let secretService = handle.secretService else {
            throw invalidArgument("not a Secret Service handle: nothing it stores crosses a bus")
        }
        do throws(KeychainError) {
            outEncrypted.pointee = try secretService.transferIsEncrypted() ? 1 : 0
            return KK_OK
        } catch {
            return fail(error, on: handle)
        }
    }
}

/// The options at `pointer` (the defaults when NULL), read as far as their
/// version has fields; later fields keep their defaults.
private func read(_ pointer: UnsafePointer<kk_secret_service_options>?) throws(ArgumentFailure) -> kk_secret_service_options {
    guard let pointer else { return defaultOptions }
    let version = UnsafeRawPointer(pointer).load(as: UInt32.self)
    guard let size = size(ofOptionsVersion: version) else {
        throw invalidArgument("unknown options version \(version) (initialize with KK_SECRET_SERVICE_OPTIONS_INIT)")
    }
    var options = defaultOptions
    withUnsafeMutableBytes(of: &options) { $0.baseAddress!.copyMemory(from: UnsafeRawPointer(pointer), byteCount: size) }
    return options
}

/// The backend `options` describe.
private func secretServiceInterface(
    _ options: kk_secret_service_options
) throws(ArgumentFailure) -> SecretServiceKeychainInterface {
    let collection = try optionalText(options.collection, "collection") ?? "default"
    if let reason = SecretServiceKeychainInterface.invalidCollectionReason(collection) { throw invalidArgument(reason) }
    let prompts: PromptPolicy
    switch options.prompts {
    case KK_PROMPT_AUTOMATIC: prompts = .automatic
    case KK_PROMPT_NEVER: prompts = .never
    case KK_PROMPT_ALLOWED: prompts = .allowed
    default: throw invalidArgument("unknown prompt policy \(options.prompts.rawValue)")
    }
    let transfer: TransferPolicy
    switch options.transfer {
    case KK_TRANSFER_PREFER_ENCRYPTED: transfer = .preferEncrypted
    case KK_TRANSFER_REQUIRE_ENCRYPTED: transfer = .requireEncrypted
    default: throw invalidArgument("unknown transfer policy \(options.transfer.rawValue)")
    }
    return SecretServiceKeychainInterface(
        collection: collection,
        timeout: options.timeout_ms == 0 ? SecretServiceKeychainInterface.defaultTimeout : .milliseconds(Int(options.timeout_ms)),
        prompts: prompts,
        promptTimeout: options.prompt_timeout_ms == 0
            ? SecretServiceKeychainInterface.defaultPromptTimeout : .milliseconds(Int(options.prompt_timeout_ms)),
        transfer: transfer)
}
