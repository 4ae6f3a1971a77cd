// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "Backdrop",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "backdrop", targets: ["backdrop"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.25.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // Traces exported over OTLP/HTTP only (no gRPC), by the command; the library makes spans through Tracing alone.
        .package(url: "https://github.com/swift-otel/swift-otel.git", exact: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .target(name: "CJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        // The pixel loops and the PNG writer are optimised in debug builds too: at -O0 the scanline deflate and the
        // filters' vector lanes take 2.7 times libdeflate's time (36 against 13 ms a 640x1136 render), load every test
        // run's renders, and push the deadline tests towards their limits.
        .target(name: "CPixels", cSettings: optimisedInDebug),
        .target(
            name: "CPNG",
            dependencies: ["CPixels"],
            cSettings: optimisedInDebug,
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("deflate")]
        ),
        .target(name: "CWebP", linkerSettings: [.linkedLibrary("webp")]),
        .target(name: "CAVIF", linkerSettings: [.linkedLibrary("avif"), .linkedLibrary("aom")]),
        .systemLibrary(name: "CDeflate"),
        .systemLibrary(name: "CMalloc"),
        .target(
            name: "Backdrop",
            dependencies: [
                "CJPEG",
                "CPNG",
                "CPixels",
                "CWebP",
                "CAVIF",
                "CDeflate",
                "CMalloc",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .executableTarget(
            name: "backdrop",
            dependencies: [
                "Backdrop",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The bench's encoders and helpers beside the service's (PNG writers, filters and levels, AVIF settings, the
        // bilinear upscale clients use): the bench and the tests link them, the service does not.
        .target(
            name: "CImagingLab",
            dependencies: ["CPNG", "CAVIF"],
            path: "Benchmarks/CImagingLab",
            cSettings: optimisedInDebug,
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("deflate"), .linkedLibrary("avif")]
        ),
        .target(
            name: "BackdropLab",
            dependencies: ["Backdrop", "CImagingLab", .product(name: "NIOCore", package: "swift-nio")],
            path: "Benchmarks/BackdropLab"
        ),
        // The scanline deflate's proof, run by the tests, under sanitizers by `make test` and by `make fuzz`.
        .target(
            name: "CDeflateProof",
            dependencies: ["CPNG"],
            path: "Tests/CDeflateProof",
            cSettings: optimisedInDebug,
            linkerSettings: [.linkedLibrary("z"), .linkedLibrary("deflate")]
        ),
        // Decoders for formats the service only encodes: the tests and the benchmark read back what it wrote.
        .executableTarget(
            name: "backdrop-bench",
            dependencies: ["Backdrop", "BackdropLab", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOFoundationCompat", package: "swift-nio")],
            path: "Benchmarks/backdrop-bench"
        ),
        // The least NIO does for a hit, beside Backdrop and nginx in cache_hit.py: the floor the server stack sets.
        .executableTarget(
            name: "nio-hit",
            dependencies: [.product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")],
            path: "Benchmarks/nio-hit"
        ),
        .testTarget(
            name: "BackdropTests",
            dependencies: [
                "Backdrop",
                "BackdropLab",
                "CDeflateProof",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // swift-otel's own samplers, to decide alike (TelemetryTests).
                .product(name: "OTel", package: "swift-otel"),
            ],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

/// C flags for targets whose loops are the render's hot path (the last -O on the command line wins).
var optimisedInDebug: [CSetting] { [.unsafeFlags(["-O2"], .when(configuration: .debug))] }
