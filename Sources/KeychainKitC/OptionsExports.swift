import CKeychainKitSupport
import KeychainKit

/// The defaults of `kk_secret_service_options`, version 1.
private var defaultOptions: kk_secret_service_options {
    kk_secret_service_options(
        version: UInt32(KK_SECRET_SERVICE_OPTIONS_VERSION), collection: nil, timeout_ms: 0,
        prompts: KK_PROMPT_AUTOMATIC, prompt_timeout_ms: 0)
}

@c @implementation
public func kk_secret_service_options_init(
    _ options: UnsafeMutablePointer<kk_secret_service_options>?, _ version: UInt32
) -> kk_status {
    guard let options else { return fail(KK_EINVAL, "options is NULL") }
    guard version == UInt32(KK_SECRET_SERVICE_OPTIONS_VERSION) else {
        return fail(KK_EINVAL, "unknown options version \(version)")
    }
    options.pointee = defaultOptions
    return KK_OK
}

@c @implementation
public func kk_open_secret_service_with(
    _ options: UnsafePointer<kk_secret_service_options>?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> kk_status {
    status { () throws(ArgumentFailure) in
        let interface = try secretServiceInterface(options?.pointee ?? defaultOptions)
        return open(out) { Keychain(interface: interface) }
    }
}

/// The backend `options` describe.
private func secretServiceInterface(
    _ options: kk_secret_service_options
) throws(ArgumentFailure) -> SecretServiceKeychainInterface {
    guard options.version == UInt32(KK_SECRET_SERVICE_OPTIONS_VERSION) else {
        throw invalidArgument("unknown options version \(options.version) (initialize with KK_SECRET_SERVICE_OPTIONS_INIT)")
    }
    let collection = try optionalText(options.collection, "collection") ?? "default"
    if let reason = SecretServiceKeychainInterface.invalidCollectionReason(collection) { throw invalidArgument(reason) }
    let prompts: PromptPolicy
    switch options.prompts {
    case KK_PROMPT_AUTOMATIC: prompts = .automatic
    case KK_PROMPT_NEVER: prompts = .never
    case KK_PROMPT_ALLOWED: prompts = .allowed
    default: throw invalidArgument("unknown prompt policy \(options.prompts.rawValue)")
    }
    return SecretServiceKeychainInterface(
        collection: collection,
        timeout: .milliseconds(options.timeout_ms == 0 ? 5_000 : Int(options.timeout_ms)),
        prompts: prompts,
        promptTimeout: .milliseconds(options.prompt_timeout_ms == 0 ? 120_000 : Int(options.prompt_timeout_ms)))
}
