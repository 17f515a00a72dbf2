// swift-tools-version: 6.0
import PackageDescription

/// Compiler settings every target shares: Swift 6 language mode is the package default (tools 6.0);
/// CI adds `-warnings-as-errors` on the command line (see scripts/test.sh).
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "tally",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Tracking", targets: ["Tracking"]),
        .library(name: "TrackingMocks", targets: ["TrackingMocks"]),
        .library(name: "TallyPipeline", targets: ["TallyPipeline"]),
        .library(name: "TallyPipelineTesting", targets: ["TallyPipelineTesting"]),
        .library(name: "TallyFileStore", targets: ["TallyFileStore"]),
        .library(name: "TallySchema", targets: ["TallySchema"]),
        .library(name: "TallyPostgres", targets: ["TallyPostgres"]),
        .library(name: "TallyDelivery", targets: ["TallyDelivery"]),
        .executable(name: "tally", targets: ["tally"]),
        .executable(name: "tally-codegen", targets: ["tally-codegen"]),
        .plugin(name: "TallyPlanPlugin", targets: ["TallyPlanPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.9.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        // The ClickHouse store's HTTP client (already in the graph through HummingbirdTesting).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // The API feature modules import: no dependencies at all.
        .target(name: "Tracking", path: "Sources/App/Tracking", swiftSettings: strict),
        .target(
            name: "TrackingMocks",
            dependencies: ["Tracking"],
            path: "Sources/App/TrackingMocks",
            swiftSettings: strict
        ),

        // Envelope, ids, timestamps, JSON: value types shared by every other target, and the I/O and
        // concurrency plumbing under them. No product: public is only what a product's API shows
        // (the envelope and its values, the id generator tests use), the rest is package.
        .target(name: "TallyCore", path: "Sources/Shared/TallyCore", swiftSettings: strict),

        // Tracking plans: JSON Schema keywords, the registry, event validation and plan importers.
        .target(
            name: "TallySchema",
            dependencies: ["TallyCore"],
            path: "Sources/Shared/TallySchema",
            swiftSettings: strict
        ),

        // The way in: every source's input (tally, Segment spec messages, PostHog events) decoded to
        // envelopes, and the one accept step (stamp, validate, default feature) of ingest, serve
        // and replay.
        .target(
            name: "TallyFormats",
            dependencies: ["TallyCore", "TallySchema"],
            path: "Sources/Server/TallyFormats",
            swiftSettings: strict
        ),

        // The batching pipeline, the sink protocol, retries and dead letters.
        .target(
            name: "TallyPipeline",
            dependencies: [
                "Tracking",
                "TallyCore",
                "TallySchema",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Shared/TallyPipeline",
            swiftSettings: strict
        ),

        // Test doubles for code that runs the pipeline: in-memory sinks and a manual clock.
        .target(
            name: "TallyPipelineTesting",
            dependencies: ["TallyCore", "TallyPipeline"],
            path: "Sources/Shared/TallyPipelineTesting",
            swiftSettings: strict
        ),

        // The embedded default store: daily NDJSON files, their reader and the file dead-letter.
        .target(
            name: "TallyFileStore",
            dependencies: ["TallyCore", "TallyPipeline", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Stores/TallyFileStore",
            swiftSettings: strict
        ),

        // Examples: a feature module written the way our users write them, and the app that wires it up.
        // Its events are generated at build time from its TrackingPlans directory (a link to
        // Examples/registry) by TallyPlanPlugin.
        .target(
            name: "EpisodeFeature",
            dependencies: ["Tracking"],
            path: "Examples/EpisodeFeature/Sources/EpisodeFeature",
            exclude: ["TrackingPlans"],
            plugins: [.plugin(name: "TallyPlanPlugin")]
        ),
        .executableTarget(
            name: "episode-demo",
            dependencies: [
                "EpisodeFeature",
                "Tracking",
                "TallyCore",
                "TallyPipeline",
                "TallyFileStore",
                "TallyDelivery",
                "TallySchema",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Examples/EpisodeDemo",
            swiftSettings: strict
        ),
        // libpq (Debian's libpq-dev), and the one target that touches it.
        .systemLibrary(
            name: "CLibPQ",
            path: "Sources/Stores/CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .target(
            name: "TallyPostgres",
            dependencies: ["CLibPQ", "TallyCore", "TallyPipeline", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Stores/TallyPostgres",
            swiftSettings: strict,
            plugins: [.plugin(name: "TallyMigrationsPlugin")]
        ),
        // sql/ compiled into TallyPostgres: the binary carries the migrations it expects.
        .executableTarget(name: "tally-embed-sql", path: "Sources/Tools/tally-embed-sql", swiftSettings: strict),
        .plugin(name: "TallyMigrationsPlugin", capability: .buildTool(), dependencies: ["tally-embed-sql"]),

        // ClickHouse, the distributed store: its schema, the sink (RowBinary over HTTP) and the client
        // reports read through.
        .target(
            name: "TallyClickHouse",
            dependencies: [
                "TallyCore", "TallyPipeline",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Stores/TallyClickHouse",
            swiftSettings: strict
        ),

        // `tally summary`, `tally report` and `tally status`: the report model and its evaluation over the
        // file store, PostgreSQL and ClickHouse, and the plans against what a store holds (the tracking
        // plans check report definitions too). The dashboard shows the same.
        .target(
            name: "TallyReports",
            dependencies: ["TallyCore", "TallyFileStore", "TallyPostgres", "TallyClickHouse", "TallySchema"],
            path: "Sources/Reports/TallyReports",
            swiftSettings: strict
        ),

        // zlib (Debian's zlib1g-dev), and the small streaming inflater and deflater over it: the
        // collector's request bodies and the app-side uploader's gzip; it depends on nothing heavy.
        .systemLibrary(
            name: "CZlib",
            path: "Sources/Shared/CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "TallyCompression",
            dependencies: ["CZlib"],
            path: "Sources/Shared/TallyCompression",
            swiftSettings: strict
        ),

        // The app side of delivery: the pipeline's batches into a disk outbox, and the uploader that
        // moves the outbox to a collector. Foundation (URLSession) and zlib only, beyond tally's own.
        .target(
            name: "TallyDelivery",
            dependencies: [
                "Tracking", "TallyCore", "TallyPipeline", "TallyCompression",
                "TallySchema",  // the tracking plan's privacy keywords
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/App/TallyDelivery",
            swiftSettings: strict
        ),

        // `tally serve`: the HTTP collector (Hummingbird 2), its keys, limits and group commit.
        .target(
            name: "TallyServer",
            dependencies: [
                "TallyCore", "TallyFormats", "TallySchema", "TallyPipeline", "TallyCompression",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // SIGHUP reloads the keys file.
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Server/TallyServer",
            swiftSettings: strict
        ),

        // `tally dashboard`: the reports as pages for people (server-rendered HTML and SVG) and a JSON API,
        // behind reader keys, on a port of its own.
        .target(
            name: "TallyDashboard",
            dependencies: [
                "TallyCore", "TallyReports", "TallySchema", "TallyFileStore", "TallyPostgres", "TallyServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Server/TallyDashboard",
            swiftSettings: strict
        ),

        // Tracking plans → typed Swift events: `tally schema generate`, and the tool of the build plugin
        // (TallySchema only, so that building a feature with the plugin stays cheap).
        .target(
            name: "TallyCodegen",
            dependencies: ["TallyCore", "TallySchema"],
            path: "Sources/Tools/TallyCodegen",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "tally-codegen",
            dependencies: [
                "TallyCodegen", "TallySchema", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Tools/tally-codegen",
            swiftSettings: strict
        ),
        .plugin(name: "TallyPlanPlugin", capability: .buildTool(), dependencies: ["tally-codegen"]),

        // What the operator's commands do, below their options: `tally ingest` (NDJSON files through
        // validation into the stores), `tally replay` (the events that were not stored), `tally status`'s
        // rendering and `tally doctor`, `tally schema verify` (the one target that parses Swift:
        // swift-syntax, 1–2.5 min to build), and the wiring every command shares: the stores a command
        // writes to or reads from, keys files, failures and their exit codes.
        .target(
            name: "TallyOperations",
            dependencies: [
                "CMalloc", "TallyCore", "TallyFormats", "TallySchema", "TallyPipeline", "TallyFileStore",
                "TallyPostgres",
                "TallyClickHouse", "TallyReports", "TallyServer", "TallyDashboard", "TallyCodegen",
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/CLI/TallyOperations",
            swiftSettings: strict
        ),

        // glibc's mallopt, for the CLI's malloc arena limit.
        .systemLibrary(name: "CMalloc", path: "Sources/CLI/CMalloc"),

        // The command-line tool: its options, parsed and handed to TallyOperations and the libraries.
        .executableTarget(
            name: "tally",
            dependencies: [
                "TallyOperations",
                "TallyCore",
                "TallyFormats",
                "TallySchema",
                "TallyReports",
                "TallyPostgres",
                "TallyServer",
                "TallyCodegen",
                "TallyDashboard",
                "TallyFileStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/CLI/tally",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "tally-bench",
            dependencies: [
                "Tracking", "TallyCore", "TallyFormats", "TallySchema", "TallyPipeline", "TallyOperations",
                "TallyPostgres",
                "TallyDelivery", "TallyFileStore", "TallyCompression",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/tally-bench",
            swiftSettings: strict
        ),

        // Helpers shared by the test targets (conformance data lookup).
        .target(
            name: "TallyTestSupport",
            dependencies: ["TallyCore", "TallyPostgres"],
            path: "Tests/TallyTestSupport",
            swiftSettings: strict
        ),

        .testTarget(name: "TrackingMocksTests", dependencies: ["Tracking", "TrackingMocks"], swiftSettings: strict),
        .testTarget(
            name: "TallyFormatsTests",
            dependencies: ["TallyFormats", "TallyCore", "TallyTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(name: "TallyCoreTests", dependencies: ["TallyCore", "TallyTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "TallySchemaTests",
            dependencies: ["TallySchema", "TallyCore", "TallyTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyPipelineTests",
            dependencies: [
                "TallyPipeline", "TallyCore", "TallySchema", "Tracking", "TallyTestSupport",
                "TallyPipelineTesting",
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyOperationsTests",
            dependencies: [
                "TallyOperations", "TallyPipeline", "TallySchema", "TallyCore", "TallyFileStore", "TallyReports",
                "TallyServer", "TallyTestSupport", "TallyPipelineTesting",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyFileStoreTests",
            dependencies: ["TallyFileStore", "TallyPipeline", "TallyCore", "TallyReports"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "EpisodeFeatureTests",
            dependencies: ["EpisodeFeature", "Tracking", "TrackingMocks"],
            path: "Examples/EpisodeFeature/Tests/EpisodeFeatureTests"
        ),
        .testTarget(
            name: "TallyPostgresTests",
            dependencies: [
                "TallyPostgres", "TallyCore", "TallyPipeline", "TallyOperations", "TallyTestSupport",
                "TallyPipelineTesting", "TallySchema",
            ],
            swiftSettings: strict
        ),
        // The documentation's code samples (README, docs/, the products' DocC articles), compiled and run
        // as they are written there: they test the docs, across the products.
        .testTarget(
            name: "DocSnippetTests",
            dependencies: [
                "Tracking", "TrackingMocks", "TallyPipeline", "TallyCore", "TallySchema", "TallyFileStore",
                "TallyPostgres", "TallyTestSupport", "TallyDelivery",
                "TallyPipelineTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyServerTests",
            dependencies: [
                "TallyServer", "TallyCompression", "TallyCore", "TallyPipeline", "TallyFileStore", "TallySchema",
                "TallyTestSupport", "TallyPipelineTesting", "TallyPostgres",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyDeliveryTests",
            dependencies: [
                "TallyDelivery", "TallyCore", "TallyPipeline", "TallyTestSupport", "Tracking", "TallySchema",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyCodegenTests",
            dependencies: ["TallyCodegen", "TallySchema", "TallyCore", "TallyTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyDashboardTests",
            dependencies: [
                "TallyDashboard", "TallyServer", "TallyCore", "TallyFileStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyReportsTests",
            dependencies: ["TallyReports", "TallyCore"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TallyClickHouseTests",
            dependencies: [
                "TallyClickHouse", "TallyCore", "TallyFileStore", "TallyPipeline", "TallyReports", "TallyOperations",
                "TallyTestSupport",
            ],
            swiftSettings: strict
        ),
        // The `tally` executable as a process: its commands, exit codes and output (Process), faults
        // while it runs (Fault: kill -9, a database restart, a full disk, signals, hostile input), and
        // the deploy units, scripts and README commands around it (Deploy).
        .testTarget(
            name: "tallyTests",
            dependencies: ["TallyCore", "TallyFileStore", "TallyPostgres", "TallyTestSupport"],
            swiftSettings: strict
        ),
    ]
)

// scripts/test.sh's ThreadSanitizer pass: this package's own targets instrumented, in the same build
// directory as the plain build, so that the dependencies (NIO, Hummingbird, swift-syntax: most of the
// build) are not compiled again with `swift test --sanitize=thread` (that second full build took 9 of
// the suite's 23 minutes). What only a dependency does is not checked, as with the toolchain's own
// libraries; the next plain build recompiles only these targets.
if Context.environment["TALLY_SANITIZE_THREAD"] == "1" {
    for target in package.targets where [.regular, .executable, .test].contains(target.type) {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=thread"])]
        target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-sanitize=thread"])]
    }
}
