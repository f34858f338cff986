// swift-tools-version:6.0
import PackageDescription

/// adhocbuild: turns an iOS build into something testers can install, on Linux.
///
/// Layering (arrows point down only):
///   adhocbuild (executable: arguments, help, output; options declared with CommandLineOptions)
///     -> AdhocBuildKit (environments, versions, pipeline, CI; callable as a library)
///       -> PlistEditing (`adhocbuild plist`: print, get, set, delete, convert, merge, lint) -> PlistKit
///       -> XcodeProjectEditing (project.pbxproj build settings edited in place, `$(VAR)` expansion) -> PlistKit
///       -> Manifest (OTA manifest, install page, index, templates, QR codes)
///       -> ObjectStorage (S3-compatible stores: SigV4 signing, credentials, HTTP over libcurl, S3 operations)
///       -> CodeSign (Mach-O, embedded signatures, requirements, entitlements, CodeResources, CMS)
///         -> IPAKit (app bundles, ipas, provisioning profiles, icons; Manifest uses it too)
///           -> AssetCatalog (Assets.car) -> Compression
///           -> Compression (deflate, inflate and zlib data over libdeflate and zlib; LZFSE and LZVN decoding)
///           -> PlistKit (plist model and codecs)
///             -> SystemSupport (errors, system calls, locks, worker pool, version)
///               -> C* system libraries (one small target per C library; CLinux for Linux calls)
///   CommandLineOptions (the option parser) -> SystemSupport
let package = Package(
    name: "adhocbuild",
    products: [
        .executable(name: "adhocbuild", targets: ["adhocbuild"]),
        .library(name: "PlistKit", targets: ["PlistKit"]),
        .library(name: "IPAKit", targets: ["IPAKit"]),
        .library(name: "CodeSign", targets: ["CodeSign"]),
        .library(name: "Crypto", targets: ["Crypto"]),
        .library(name: "Manifest", targets: ["Manifest"]),
        .library(name: "AdhocBuildKit", targets: ["AdhocBuildKit"]),
        .library(name: "PlistEditing", targets: ["PlistEditing"]),
        .library(name: "XcodeProjectEditing", targets: ["XcodeProjectEditing"]),
        .library(name: "CommandLineOptions", targets: ["CommandLineOptions"]),
        .library(name: "AssetCatalog", targets: ["AssetCatalog"]),
        .library(name: "Compression", targets: ["Compression"]),
        .library(name: "SystemSupport", targets: ["SystemSupport"]),
        .library(name: "ObjectStorage", targets: ["ObjectStorage"])
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
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CLibCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // Linux calls glibc has but Swift's Glibc module does not show; nothing to link.
        .systemLibrary(name: "CLinux"),
        .target(name: "SystemSupport", dependencies: ["CLinux"]),
        .target(
            name: "PlistKit",
            dependencies: ["SystemSupport", "CLibXML2"]
        ),
        // Deflate/ (whole-buffer and chunked deflate, inflate, zlib data, CRC-32 through libdeflate and
        // zlib) and LZFSE/ (LZFSE and LZVN decoding, the pixel data of Assets.car, written here).
        .target(name: "Compression", dependencies: ["SystemSupport", "CLibDeflate", "CZlib"]),
        // Compiled asset catalogs (Assets.car): BOM container, renditions, pixels as RGBA.
        .target(
            name: "AssetCatalog",
            dependencies: ["SystemSupport", "Compression"]
        ),
        .target(
            name: "IPAKit",
            dependencies: ["SystemSupport", "PlistKit", "AssetCatalog", "Compression", "CLibZip", "CLibDeflate", "CZlib", "CLinux"]
        ),
        // libcrypto's digests (SHA-1, SHA-256, SHA-384, whole or streamed), HMAC-SHA256, random bytes and a
        // constant-time comparison: the one place CodeSign and ObjectStorage hash through.
        .target(name: "Crypto", dependencies: ["SystemSupport", "CLibCrypto"]),
        .target(
            name: "CodeSign",
            dependencies: ["SystemSupport", "PlistKit", "IPAKit", "Crypto", "CLibCrypto"]
        ),
        .target(
            name: "Manifest",
            dependencies: ["SystemSupport", "PlistKit", "AssetCatalog", "IPAKit", "CQRencode"]
        ),
        // S3-compatible object storage (groundwork for `publish`, issue 34): SigV4/ (AWS Signature Version 4
        // headers and presigned URLs, hashed through Crypto), Credentials/ (as the AWS tools find
        // them), HTTP/ (one request API over libcurl, retries), S3/ (locations, endpoints, operations;
        // request bodies escaped with PlistKit's XMLText).
        .target(
            name: "ObjectStorage",
            dependencies: ["SystemSupport", "PlistKit", "Crypto", "CLibCurl", "CLibXML2"]
        ),
        // The operations of `adhocbuild plist` (a Linux PlistBuddy and plutil) on files; PlistKit alone.
        .target(name: "PlistEditing", dependencies: ["SystemSupport", "PlistKit"]),
        // An Xcode project's targets and build settings, read from project.pbxproj and edited without
        // touching any other byte; `$(VAR)` build-setting expansion; the `build` diagnostics. PlistKit alone.
        .target(name: "XcodeProjectEditing", dependencies: ["SystemSupport", "PlistKit"]),
        .target(
            name: "AdhocBuildKit",
            dependencies: [
                "SystemSupport", "PlistKit", "PlistEditing", "XcodeProjectEditing", "AssetCatalog", "IPAKit", "CodeSign", "Manifest",
                "ObjectStorage"
            ]
        ),
        // Declared, typed options: parsing, checking, usage and help. Depends on SystemSupport alone.
        .target(name: "CommandLineOptions", dependencies: ["SystemSupport"]),
        .executableTarget(
            name: "adhocbuild",
            dependencies: [
                "CommandLineOptions", "SystemSupport", "AdhocBuildKit", "IPAKit", "CodeSign", "Crypto", "Manifest", "ObjectStorage",
                "PlistKit", "PlistEditing"
            ],
            exclude: ["Linking"],
            // A release binary linked at a fixed address: with the Swift runtime and Foundation
            // linked in, a position-independent one has about 73,000 relocations for the dynamic
            // loader to apply, and their pages to copy, on every start (`adhocbuild --version`:
            // about 4.8 -> 4.2 ms and 750 -> 560 page faults). `make release` also links libxml2, ICU,
            // libdeflate and libstdc++ from their static archives (the Makefile says why and how).
            linkerSettings: [
                .unsafeFlags(["-Xclang-linker", "-no-pie"], .when(platforms: [.linux], configuration: .release)),
                // Only the libraries something in the binary calls are loaded at start: libcurl is
                // looked up when the first request is sent (ObjectStorage's LibCurl), so the `-lcurl`
                // its pkg-config gives is dropped, and with it libcurl, the 27 libraries it needs and
                // about 4 ms of start-up. `--as-needed` acts on the libraries after it, and swiftc puts
                // every -Xlinker flag after the -l flags; a clang configuration file's flags come first.
                .unsafeFlags(
                    ["-Xclang-linker", "--config=\(Context.packageDirectory)/Sources/adhocbuild/Linking/as-needed.cfg"],
                    .when(platforms: [.linux]))
            ]
        ),
        .executableTarget(name: "lzfse-decode-bench", dependencies: ["Compression"], path: "bench/LZFSEBench"),
        .testTarget(name: "CompressionTests", dependencies: ["Compression", "TestSupport"]),
        .executableTarget(
            name: "foundation-plist-bench",
            path: "bench/FoundationPlistBench"
        ),
        .target(
            name: "TestSupport",
            dependencies: ["PlistKit", "SystemSupport"],
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
            dependencies: ["IPAKit", "AssetCatalog", "Compression", "PlistKit", "SystemSupport", "TestSupport"]
        ),
        .testTarget(
            name: "CodeSignTests",
            dependencies: ["CodeSign", "IPAKit", "PlistKit", "SystemSupport", "TestSupport"]
        ),
        .testTarget(
            name: "ManifestTests",
            dependencies: ["Manifest", "AssetCatalog", "IPAKit", "PlistKit", "TestSupport"]
        ),
        .testTarget(
            name: "AdhocBuildKitTests",
            dependencies: [
                "AdhocBuildKit", "XcodeProjectEditing", "AssetCatalog", "CodeSign", "IPAKit", "ObjectStorage", "PlistKit", "SystemSupport",
                "TestSupport"
            ]
        ),
        .testTarget(
            name: "PlistEditingTests",
            dependencies: ["PlistEditing", "PlistKit", "SystemSupport", "TestSupport"]
        ),
        .testTarget(
            name: "XcodeProjectEditingTests",
            dependencies: ["XcodeProjectEditing", "SystemSupport", "TestSupport"]
        ),
        .testTarget(
            name: "AssetCatalogTests",
            dependencies: ["AssetCatalog", "IPAKit", "PlistKit", "TestSupport"]
        ),
        .testTarget(
            name: "ObjectStorageTests",
            dependencies: ["ObjectStorage", "SystemSupport", "TestSupport"]
        ),
        .testTarget(
            name: "CryptoTests",
            dependencies: ["Crypto", "SystemSupport", "TestSupport"]
        ),
        .testTarget(
            name: "CommandLineOptionsTests",
            dependencies: ["CommandLineOptions"]
        ),
        .testTarget(
            name: "adhocbuildTests",
            dependencies: ["adhocbuild", "ObjectStorage", "TestSupport"],
            exclude: ["Snapshots"]  // read from the source tree, so they can be re-recorded
        )
    ]
)
