// SPDX-License-Identifier: MIT
// `import KeychainKit` is the whole Swift API: the blocking API of
// KeychainKitAPI (with the core's types and every backend's interface) and,
// in this module, its `async` forms. Only this module uses Swift concurrency,
// so the C library and the tool, which stand on KeychainKitAPI, carry
// neither the concurrency runtime nor libdispatch.
@_exported import KeychainKitAPI
