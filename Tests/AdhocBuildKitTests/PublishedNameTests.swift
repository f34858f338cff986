import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import AdhocBuildKit

/// Issue 31: the published ipa is named after the app's folder, which the build names; it goes
/// through the rule every published name does (``SafeFileName``), so a build cannot publish a hidden
/// ipa (which CI uploads and web listings skip). A folder name holding a control character or a
/// backslash is refused when the app is packaged, before any name is made.
@Suite struct PublishedNameTests {
    @Test(arguments: [
        (".ShoutOut.app", "_ShoutOut.ipa"),
        ("..app", "_.ipa")
    ])
    func theIpaOfAnAppWhoseFolderNameIsUnsafeIsPublishedUnderASafeName(folderName: String, published: String) throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let app = folder.path("in/" + folderName)
            try FileManager.default.createDirectory(atPath: folder.path("in"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: ReleasePipelineTests.exampleApp, toPath: app)
            var options = ReleasePipeline.Options(
                environment: "Staging", input: app, baseURL: "https://builds.example.com/", out: folder.path("dist"))
            options.environmentsFolder = SampleEnvironments.path
            options.profile = try ReleasePipelineTests.profile(folder)
            options.processEnvironment = [:]
            let result = try ReleasePipeline(options: options).run()
            #expect((result.ipa as NSString).lastPathComponent == published)
            let names = try FileManager.default.contentsOfDirectory(atPath: result.releaseFolder)
            #expect(names.filter { $0.hasSuffix(".ipa") } == [published], "\(names)")
            let manifest = try String(contentsOfFile: result.releaseFolder + "/manifest.plist", encoding: .utf8)
            #expect(manifest.contains("/" + published + "</string>"), "\(manifest)")
        }
    }
}
