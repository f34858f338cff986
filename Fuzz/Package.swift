// swift-tools-version:5.9
import Foundation
import PackageDescription

/// libFuzzer harnesses for every parser adhocbuild exposes to untrusted input. Built by `make fuzz`
/// with AddressSanitizer and libFuzzer's coverage instrumentation, linked with libFuzzer's no-main
/// runtime; each harness hands its input to one parser through `FuzzDriver.runFuzzer`.
/// Every folder of `Sources/` but `FuzzDriver` is a harness, built as `fuzz-<folder>`: adding a harness
/// is adding its folder. `scripts/fuzz.sh` and `scripts/fresh-clone-check.sh` read the same folders.
let harnesses = ((try? FileManager.default.contentsOfDirectory(atPath: Context.packageDirectory + "/Sources")) ?? [])
    .filter { $0 != "FuzzDriver" && !$0.hasPrefix(".") }
    .sorted()

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
                    .product(name: "XcodeProjectEditing", package: "adhocbuild"),
                    .product(name: "AssetCatalog", package: "adhocbuild"),
                    .product(name: "Compression", package: "adhocbuild"),
                    .product(name: "SystemSupport", package: "adhocbuild")
                ],
                path: "Sources/\(name)")
        }
)
