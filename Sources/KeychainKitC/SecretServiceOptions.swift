// SPDX-License-Identifier: MIT
import CKeychainKitSupport
import KeychainKitAPI

// `kk_secret_service_options`: its defaults, its versions, and the backend
// it describes.

/// The defaults of `kk_secret_service_options`, this header's version.
var defaultOptions: kk_secret_service_options {
    kk_secret_service_options(
        version: UInt32(KK_SECRET_SERVICE_OPTIONS_VERSION), collection: nil, timeout_ms: 0,
        prompts: KK_PROMPT_AUTOMATIC, prompt_timeout_ms: 0, transfer: KK_TRANSFER_PREFER_ENCRYPTED)
}

/// The versions of `kk_secret_service_options` the library reads, with the
/// size of each: version 1 ends before `transfer`.
func size(ofOptionsVersion version: UInt32) -> Int? {
    switch version {
    case 1: MemoryLayout<kk_secret_service_options>.offset(of: \.transfer)
    case UInt32(KK_SECRET_SERVICE_OPTIONS_VERSION): MemoryLayout<kk_secret_service_options>.size
    default: nil
    }
}

/// The options at `pointer` (the defaults when NULL), read as far as their
/// version has fields; later fields keep their defaults.
func readOptions(_ pointer: UnsafePointer<kk_secret_service_options>?) throws(ArgumentFailure) -> kk_secret_service_options {
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
func secretServiceInterface(
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
        timeout: .milliseconds(Int(options.timeout_ms == 0 ? UInt32(KK_DEFAULT_TIMEOUT_MS) : options.timeout_ms)),
        prompts: prompts,
        promptTimeout: .milliseconds(
            Int(options.prompt_timeout_ms == 0 ? UInt32(KK_DEFAULT_PROMPT_TIMEOUT_MS) : options.prompt_timeout_ms)),
        transfer: transfer)
}
