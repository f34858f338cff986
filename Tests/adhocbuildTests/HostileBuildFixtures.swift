import Foundation
import TestSupport
import Testing

/// Hostile builds for the tests of issue 31's writes outside what the user named: made in a
/// temporary folder from the example app and a real ipa, never kept in the project.
enum HostileBuild {
    static let example = Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app").path
    static let environments = Fixtures.packageRoot.appendingPathComponent("environments").path

    /// The Apple-built `Test.app` of a real ipa, its icon set `AppIcon` renamed `../zzzz` in Assets.car and
    /// in `CFBundleIconName` (same length, so no offset moves), as `name.app` and `name.ipa` under `folder`.
    static func catalogNamedAsAPath(in folder: String, name: String = "Test") throws -> (app: String, ipa: String) {
        let script = """
            import os, sys, zipfile
            source, folder, name = sys.argv[1], sys.argv[2], sys.argv[3]
            os.makedirs(folder, exist_ok=True)
            with zipfile.ZipFile(source) as z, zipfile.ZipFile(os.path.join(folder, name + ".ipa"), "w", zipfile.ZIP_DEFLATED) as out:
                for item in z.infolist():
                    data = z.read(item)
                    if item.filename in ("Payload/Test.app/Assets.car", "Payload/Test.app/Info.plist"):
                        data = data.replace(b"AppIcon", b"../zzzz")
                    out.writestr(item, data)
                    relative = item.filename[len("Payload/Test.app"):]
                    if not item.filename.startswith("Payload/Test.app/"):
                        continue
                    target = os.path.join(folder, name + ".app" + relative)
                    if item.filename.endswith("/"):
                        os.makedirs(target, exist_ok=True)
                    else:
                        os.makedirs(os.path.dirname(target), exist_ok=True)
                        open(target, "wb").write(data)
            """
        let result = try ProcessResult.run(
            "/usr/bin/python3", ["-c", script, Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path, folder, name])
        guard result.status == 0 else { throw SetupFailure("python3 could not make the hostile app: \(result.stderrText)") }
        return (folder + "/\(name).app", folder + "/\(name).ipa")
    }

    /// A copy of the example app at `path`.
    @discardableResult
    static func exampleApp(at path: String) throws -> String {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: example, toPath: path)
        return path
    }

    /// Replaces `path` by a symbolic link to `target`, moving what was there to `target` first
    /// unless `target` exists already.
    static func link(_ path: String, to target: String) throws {
        let manager = FileManager.default
        if !manager.fileExists(atPath: target), manager.fileExists(atPath: path) {
            try manager.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try manager.moveItem(atPath: path, toPath: target)
        }
        try? manager.removeItem(atPath: path)
        try manager.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    /// An app nesting `PlugIns/Widget.appex`, its id under the app's, so a new bundle id rewrites it.
    static func appexPlist() -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>com.example.shoutout.widget</string>
            <key>CFBundleExecutable</key><string>Widget</string>
            <key>CFBundlePackageType</key><string>XPC!</string>
            </dict></plist>
            """.utf8)
    }

    /// Every path under `root` (links not followed) with what it is: `d`, `l -> target`, or
    /// `f size sha256`, from Python's `os.lstat` and `hashlib`.
    static func listing(_ root: String) throws -> [String: String] {
        let script = """
            import hashlib, json, os, stat, sys
            root, rows = sys.argv[1], {}
            for folder, folders, files in os.walk(root):
                for name in folders + files:
                    path = os.path.join(folder, name)
                    info = os.lstat(path)
                    key = os.path.relpath(path, root)
                    if stat.S_ISLNK(info.st_mode):
                        rows[key] = "l -> " + os.readlink(path)
                    elif stat.S_ISDIR(info.st_mode):
                        rows[key] = "d"
                    else:
                        rows[key] = "f %d %s" % (info.st_size, hashlib.sha256(open(path, "rb").read()).hexdigest())
            print(json.dumps(rows))
            """
        let result = try ProcessResult.run("/usr/bin/python3", ["-c", script, root])
        guard result.status == 0 else { throw SetupFailure("python3 could not list \(root): \(result.stderrText)") }
        return try JSONDecoder().decode([String: String].self, from: result.stdout)
    }

    /// The paths whose listing entry differs between `before` and `after` (added, removed or changed).
    static func changed(_ before: [String: String], _ after: [String: String]) -> [String] {
        Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
    }
}
