import AdhocBuildKit
import Foundation
import PlistKit
import TestSupport

/// Builds environment folders for tests.
extension TemporaryFolder {
    /// Writes each environment as `environments/<name>.plist` (XML) and returns the folder's path.
    @discardableResult
    func environments(_ files: [String: PlistValue], folder: String = "environments") throws -> String {
        for (name, value) in files {
            try create("\(folder)/\(name).plist", try PropertyList.encode(value, format: .xml))
        }
        return path(folder)
    }
}

enum SampleEnvironments {
    /// The repository's own sample (`environments/`).
    static var path: String { Fixtures.packageRoot.appendingPathComponent("environments").path }

    static func resolver(
        settings: [String: String] = [:], environment: [String: String] = [:],
        overrides: [(keyPath: PlistKeyPath, value: String)] = []
    ) throws -> EnvironmentResolver {
        EnvironmentResolver(
            store: try EnvironmentStore(at: path), overrides: overrides, settings: settings,
            processEnvironment: environment)
    }
}
