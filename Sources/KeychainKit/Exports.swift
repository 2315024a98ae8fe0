// SPDX-License-Identifier: MIT
// `import KeychainKit` is the whole Swift API: the core's types and every
// backend's interface come with it, as they did when they were one module.
@_exported import KeychainKitCore
@_exported import KeychainKitFileStore
@_exported import KeychainKitKernelKeyring
@_exported import KeychainKitSecretService  // TransferPolicy
@_exported import KeychainKitSecretServiceBackend
