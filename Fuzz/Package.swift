// swift-tools-version:5.9
import PackageDescription

/// libFuzzer harnesses for every parser adhocbuild exposes to untrusted input. Built by `make fuzz`
/// with AddressSanitizer and libFuzzer's coverage instrumentation, linked with libFuzzer's no-main
/// runtime; each harness hands its input to one parser through `FuzzDriver.runFuzzer`.
let harnesses = [
    "binary-plist", "xml-plist", "openstep-plist", "json-plist", "profile", "png", "ipa", "template", "expander", "macho", "codesign-blob",
    "car", "lzfse", "icon-paths", "ci-values"
]

let package = Package(
    name: "adhocbuild-fuzz",
    dependencies: [.package(name: "adhocbuild", path: "..")],
    targets: [.target(name: "FuzzDriver")]
        + harnesses.map { name in
            .executableTarget(
                name: "fuzz-\(name)",
                dependencies: [
                    "FuzzDriver",
                    .product(name: "PlistKit", package: "adhocbuild"),
                    .product(name: "IPAKit", package: "adhocbuild"),
                    .product(name: "CodeSign", package: "adhocbuild"),
                    .product(name: "Manifest", package: "adhocbuild"),
                    .product(name: "AdhocBuildKit", package: "adhocbuild"),
                    .product(name: "AssetCatalog", package: "adhocbuild"),
                    .product(name: "LZFSE", package: "adhocbuild")
                ],
                path: "Sources/\(name)")
        }
)
