// swift-tools-version:6.0
import PackageDescription

/// adhocbuild: turns an iOS build into something testers can install, on Linux.
///
/// Layering (arrows point down only):
///   adhocbuild (executable: arguments, help, output; options declared with CommandLineOptions)
///     -> AdhocBuildKit (environments, versions, pipeline, CI; callable as a library)
///       -> Manifest (OTA manifest, install page, index, templates, QR codes)
///       -> IPAKit (app bundles, ipas, provisioning profiles, icons)
///       -> PlistKit (plist model and codecs)
///         -> SystemSupport (errors, system calls, locks, worker pool, version)
///         -> C* system libraries (one small target per C library)
let package = Package(
    name: "adhocbuild",
    products: [
        .executable(name: "adhocbuild", targets: ["adhocbuild"]),
        .library(name: "PlistKit", targets: ["PlistKit"]),
        .library(name: "IPAKit", targets: ["IPAKit"]),
        .library(name: "Manifest", targets: ["Manifest"]),
        .library(name: "AdhocBuildKit", targets: ["AdhocBuildKit"]),
        .library(name: "CommandLineOptions", targets: ["CommandLineOptions"])
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CLibZip",
            pkgConfig: "libzip",
            providers: [.apt(["libzip-dev"])]
        ),
        .systemLibrary(
            name: "CLibDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        // Linux calls glibc has but Swift's Glibc module does not show; nothing to link.
        .systemLibrary(name: "CLinux"),
        .target(name: "SystemSupport", dependencies: ["CLinux"]),
        .target(
            name: "PlistKit",
            dependencies: ["SystemSupport", "CLibXML2"]
        ),
        .target(
            name: "IPAKit",
            dependencies: ["SystemSupport", "PlistKit", "CLibZip", "CLibDeflate", "CZlib", "CLinux"]
        ),
        .target(
            name: "Manifest",
            dependencies: ["SystemSupport", "PlistKit", "IPAKit", "CQRencode"]
        ),
        .target(
            name: "AdhocBuildKit",
            dependencies: ["SystemSupport", "PlistKit", "IPAKit", "Manifest"]
        ),
        // Declared, typed options: parsing, checking, usage and help. Depends on nothing.
        .target(name: "CommandLineOptions", dependencies: ["SystemSupport"]),
        .executableTarget(
            name: "adhocbuild",
            dependencies: ["CommandLineOptions", "SystemSupport", "AdhocBuildKit", "IPAKit", "Manifest", "PlistKit"],
            // A release binary linked at a fixed address: with the Swift runtime and Foundation
            // linked in, a position-independent one has about 73,000 relocations for the dynamic
            // loader to apply, and their pages to copy, on every start (`adhocbuild --version`:
            // about 4.8 -> 4.2 ms and 750 -> 560 page faults).
            linkerSettings: [.unsafeFlags(["-Xclang-linker", "-no-pie"], .when(platforms: [.linux], configuration: .release))]
        ),
        .executableTarget(
            name: "foundation-plist-bench",
            path: "bench/FoundationPlistBench"
        ),
        .target(
            name: "TestSupport",
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "SystemSupportTests",
            dependencies: ["SystemSupport", "TestSupport"]
        ),
        .testTarget(
            name: "PlistKitTests",
            dependencies: ["PlistKit", "TestSupport"]
        ),
        .testTarget(
            name: "IPAKitTests",
            dependencies: ["IPAKit", "PlistKit", "SystemSupport", "TestSupport"]
        ),
        .testTarget(
            name: "ManifestTests",
            dependencies: ["Manifest", "IPAKit", "PlistKit", "TestSupport"]
        ),
        .testTarget(
            name: "AdhocBuildKitTests",
            dependencies: ["AdhocBuildKit", "PlistKit", "SystemSupport", "TestSupport"]
        ),
        .testTarget(
            name: "CommandLineOptionsTests",
            dependencies: ["CommandLineOptions"]
        ),
        .testTarget(
            name: "adhocbuildTests",
            dependencies: ["adhocbuild", "TestSupport"],
            exclude: ["Snapshots"]  // read from the source tree, so they can be re-recorded
        )
    ]
)
