// swift-tools-version:6.0
// BackdropKit: the Swift client of a Backdrop service, for apps. A package of its own, beside the server's, so that an
// app that adds it fetches nothing else: Foundation only, no dependencies.
import PackageDescription

let package = Package(
    name: "BackdropKit",
    platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        .library(name: "BackdropKit", targets: ["BackdropKit"])
    ],
    targets: [
        .target(name: "BackdropKit"),
        .testTarget(name: "BackdropKitTests", dependencies: ["BackdropKit"]),
    ],
    swiftLanguageModes: [.v6]
)
