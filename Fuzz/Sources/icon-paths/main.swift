import Foundation
import FuzzDriver
import IPAKit

// Cross-format: names from an ipa's Info.plist (CFBundleIconFiles, CFBundleIconName) and from its
// Assets.car (icon set names) become the names of the files `icon extract` writes. Whatever they
// hold (`../../esc`, `/abs`, control characters), every file must land directly in the output
// folder and nothing may appear beside it (issue 31).
let scratch = "/dev/shm/adhocbuild-fuzz-icon-paths-\(getpid())"
let input = scratch + "/in.ipa"
let output = scratch + "/work/out"

runFuzzer { data in
    try? FileManager.default.removeItem(atPath: scratch)
    try? FileManager.default.createDirectory(atPath: scratch + "/work", withIntermediateDirectories: true)
    FileManager.default.createFile(atPath: input, contents: data)
    let written = (try? AppIcons.extract(input, to: output)) ?? []
    for icon in written {
        precondition(icon.path.hasPrefix(output + "/"), "written outside the output folder: \(icon.path)")
        precondition(!icon.path.dropFirst(output.count + 1).contains("/"), "written below the output folder: \(icon.path)")
    }
    // Nothing beside the output folder, and only files directly in it.
    let beside = (try? FileManager.default.contentsOfDirectory(atPath: scratch + "/work")) ?? []
    precondition(beside.isEmpty || beside == ["out"], "written beside the output folder: \(beside)")
    for name in (try? FileManager.default.contentsOfDirectory(atPath: output)) ?? [] {
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: output + "/" + name, isDirectory: &isFolder)
        precondition(!isFolder.boolValue, "a folder in the output folder: \(name)")
    }
    let top = (try? FileManager.default.contentsOfDirectory(atPath: scratch))?.sorted() ?? []
    precondition(top == ["in.ipa", "work"], "written beside the input: \(top)")
}
