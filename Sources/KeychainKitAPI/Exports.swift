// SPDX-License-Identifier: MIT
// The core's types and every backend's interface come with the Swift API, as
// they did when they were one module (`import KeychainKit` re-exports these
// in turn).
@_exported import KeychainKitCore
@_exported import KeychainKitFileStore
@_exported import KeychainKitKernelKeyring
@_exported import KeychainKitSecretService  // TransferPolicy
@_exported import KeychainKitSecretServiceBackend
