// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "KeychainKit",
    products: [
        .library(name: "KeychainKit", targets: ["KeychainKit"]),
    ],
    targets: [
        // libsecret and GIO, found through pkg-config.
        .systemLibrary(
            name: "CLibSecret",
            pkgConfig: "libsecret-1",
            providers: [.apt(["libsecret-1-dev"])]
        ),
        // The Swift core: Keychain, errors, observation, both backends. No Foundation.
        .target(
            name: "KeychainKit",
            dependencies: ["CLibSecret"]
        ),
        .testTarget(
            name: "KeychainKitTests",
            dependencies: ["KeychainKit", "CLibSecret"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
