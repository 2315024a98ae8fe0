// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "KeychainKit",
    products: [
        .library(name: "KeychainKit", targets: ["KeychainKit"]),
    ],
    targets: [
        // GIO's D-Bus client, found through pkg-config.
        .systemLibrary(
            name: "CGIO",
            pkgConfig: "gio-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),
        // The Swift core: Keychain, errors, observation, both backends. No Foundation.
        .target(
            name: "KeychainKit",
            dependencies: ["CGIO"]
        ),
        .testTarget(
            name: "KeychainKitTests",
            dependencies: ["KeychainKit", "CGIO"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
