import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

@testable import CodeSign

/// The CodeResources read straight from the reader's events (``CodeResourcesSink``) against the
/// same bytes read as a plist tree and walked (the way every seal was read before): the same seal,
/// or, where the sink declines, the same seal or the same error from the tree.
@Suite struct CodeResourcesSinkTests {
    /// The seal the tree gives, or its error's text.
    private func throughTree(_ data: Data) -> Result<CodeResources, Diagnostic> {
        Result {
            do { return try CodeResources(plist: try CodeResources.plist(data)) } catch let error as Diagnostic
                where error.is(CodeSignProblem.self)
            { throw error }
        }.mapError { $0 as! Diagnostic }
    }

    private func throughSink(_ data: Data) -> CodeResources? {
        let sink = CodeResourcesSink()
        return XMLPlistReader().readPlainXML(data, into: sink) ? sink.result : nil
    }

    /// `CodeResources(data:)` (sink first, tree when it declines) against the tree alone.
    private func expectSameAsTree(_ data: Data, _ comment: Comment) {
        let tree = throughTree(data)
        let read = Result {
            do { return try CodeResources(data: data) } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
                throw error
            }
        }
        .mapError { $0 as! Diagnostic }
        switch (tree, read) {
        case (.success(let a), .success(let b)): #expect(a == b, comment)
        case (.failure(let a), .failure(let b)): #expect(a.description == b.description, comment)
        default: Issue.record("\(comment): the tree gives \(tree), the reader \(read)")
        }
        expectVerifierReadsAsTree(data, tree: tree, comment)
    }

    /// What the verifier reads (`CodeResources(verifying:)`) against the tree: the same seal, less
    /// the version 1 `files` that a version 2 seal may come without, or the same error.
    private func expectVerifierReadsAsTree(_ data: Data, tree: Result<CodeResources, Diagnostic>, _ comment: Comment) {
        let read = Result {
            do { return try CodeResources(verifying: data) } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
                throw error
            }
        }
        .mapError { $0 as! Diagnostic }
        func checked(_ seal: CodeResources) -> CodeResources {
            var seal = seal
            if seal.isVersion2 { seal.files = [:] }
            return seal
        }
        switch (tree, read) {
        case (.success(let a), .success(let b)):
            #expect(checked(a) == checked(b), comment)
            #expect(b.isVersion2 || a == b, "\(comment): a version 1 seal keeps its files")
        case (.failure(let a), .failure(let b)): #expect(a.description == b.description, comment)
        default: Issue.record("\(comment): the tree gives \(tree), the verifier's reader \(read)")
        }
    }

    private func document(_ body: String) -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            \(body)
            </plist>

            """.utf8)
    }

    @Test(Fixtures.enabled) func everyFixtureCodeResourcesIsReadByTheSinkAsTheTreeReadsIt() throws {
        var count = 0
        for code in try FixtureCode.all() {
            guard let stored = code.bundleFile("_CodeSignature/CodeResources") else { continue }
            let sunk = try #require(throughSink(stored), "\(code): the sink declined Apple's own layout")
            #expect(sunk == (try throughTree(stored).get()), "\(code)")
            expectVerifierReadsAsTree(stored, tree: throughTree(stored), "\(code)")
            count += 1
        }
        #expect(count >= 19)
    }

    @Test func everyFieldAndRuleShapeIsReadAsTheTreeReadsIt() throws {
        let data = document(
            """
            <dict>
            \t<key>comment</key><dict><key>a</key><array><string>x</string><dict/></array><key>b</key><integer>3</integer></dict>
            \t<key>files</key>
            \t<dict>
            \t\t<key>Base.lproj/Main.nib</key><data>AAECAwQFBgcICQoLDA0ODxAREhM=</data>
            \t\t<key>en.lproj/A.strings</key><dict><key>hash</key><data>AAECAwQFBgcICQoLDA0ODxAREhM=</data><key>optional</key><true/></dict>
            \t</dict>
            \t<key>files2</key>
            \t<dict>
            \t\t<key>Old</key><data>AAECAwQFBgcICQoLDA0ODxAREhM=</data>
            \t\t<key>Frameworks/A.framework</key><dict><key>cdhash</key><data>AAECAwQFBgcICQoLDA0ODxAREhM=</data>
            \t\t\t<key>requirement</key><string>cdhash H"00" &amp; anchor apple</string></dict>
            \t\t<key>Link</key><dict><key>symlink</key><string>Target</string><key>note</key><array><true/></array></dict>
            \t\t<key>caf\u{E9}</key><dict><key>hash2</key><data>AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=</data>
            \t\t\t<key>optional</key><false/><key>extra</key><dict><key>hash</key><string>not read</string></dict></dict>
            \t</dict>
            \t<key>rules</key>
            \t<dict><key>^.*</key><true/><key>^Info\\.plist$</key><dict><key>omit</key><true/><key>weight</key><integer>20</integer></dict></dict>
            \t<key>rules2</key>
            \t<dict><key>^(Frameworks|PlugIns)/</key><dict><key>nested</key><true/><key>weight</key><real>10.5</real></dict>
            \t\t<key>^.*\\.lproj/</key><dict><key>optional</key><true/><key>weight</key><real>1000</real><key>why</key><date>2020-01-01T00:00:00Z</date></dict>
            \t\t<key>^</key><true/></dict>
            </dict>
            """)
        let sunk = try #require(throughSink(data))
        #expect(sunk == (try throughTree(data).get()))
        #expect(sunk.files2HasBareHashes)
        #expect(sunk.files2["caf\u{E9}"]?.hash2?.count == 32)
        #expect(sunk.files2["Frameworks/A.framework"]?.requirement == "cdhash H\"00\" & anchor apple")
        #expect(sunk.rules.map(\.weight) == [nil, 20])
        #expect(sunk.rules2.map(\.pattern) == ["^(Frameworks|PlugIns)/", "^.*\\.lproj/", "^"])
        expectSameAsTree(data, "every shape")
    }

    @Test func theVerifierLeavesOutTheVersion1FilesOfAVersion2SealOnly() throws {
        let version1 = "<key>files</key><dict><key>A</key><data>AAECAwQFBgcICQoLDA0ODxAREhM=</data></dict>"
        let files2 =
            "<key>files2</key><dict><key>A</key><dict><key>hash2</key><data>AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=</data></dict></dict>"
        let rules2 = "<key>rules2</key><dict><key>^</key><true/></dict>"
        let old = try CodeResources(verifying: document("<dict>\(version1)</dict>"))
        #expect(old.files.count == 1 && !old.isVersion2)
        for body in [version1 + files2, version1 + rules2, files2 + version1] {
            let data = document("<dict>\(body)</dict>")
            let read = try CodeResources(verifying: data)
            #expect(read.isVersion2 && read.files.isEmpty, "\(body)")
            expectSameAsTree(data, "\(body)")
        }
        // A version 1 seal of the wrong shape is still an error, as when it is kept.
        let broken = document(
            "<dict><key>files</key><dict><key>A</key><dict><key>hash</key><string>x</string></dict></dict>\(files2)</dict>")
        #expect(throws: Diagnostic.self) { try CodeResources(verifying: broken) }
        expectSameAsTree(broken, "a version 1 hash that is a string beside files2")
    }

    @Test func shapesTheSinkDeclinesGiveTheTreesSealOrError() throws {
        let declined: [(String, String)] = [
            ("a seal that is a string", "<dict><key>files2</key><dict><key>A</key><string>x</string></dict></dict>"),
            (
                "a hash that is a string",
                "<dict><key>files2</key><dict><key>A</key><dict><key>hash2</key><string>x</string></dict></dict></dict>"
            ),
            ("a hash that is a dictionary", "<dict><key>files</key><dict><key>A</key><dict><key>hash</key><dict/></dict></dict></dict>"),
            (
                "optional as a string",
                "<dict><key>files2</key><dict><key>A</key><dict><key>optional</key><string>yes</string></dict></dict></dict>"
            ),
            ("files as an array", "<dict><key>files</key><array/></dict>"),
            ("files as a string", "<dict><key>files</key><string>x</string></dict>"),
            ("a rule that is false", "<dict><key>rules2</key><dict><key>^</key><false/></dict></dict>"),
            ("a rule that is an array", "<dict><key>rules</key><dict><key>^</key><array/></dict></dict>"),
            (
                "a weight that is a string",
                "<dict><key>rules</key><dict><key>^</key><dict><key>weight</key><string>1</string></dict></dict></dict>"
            ),
            (
                "omit as an integer",
                "<dict><key>rules</key><dict><key>^</key><dict><key>omit</key><integer>1</integer></dict></dict></dict>"
            ),
            ("a root array", "<array><dict/></array>"),
            ("a root string", "<string>files</string>")
        ]
        for (name, body) in declined {
            let data = document(body)
            #expect(throughSink(data) == nil, "\(name)")
            expectSameAsTree(data, "\(name)")
        }
        // Outside the reader's plain subset (a comment, a duplicate key, broken XML, binary): the tree reads them.
        let binary: PlistValue = ["files2": ["A": .data(Data([1, 2]))]]
        let others: [(String, Data)] = [
            ("a comment", document("<!-- c --><dict><key>files</key><dict/></dict>")),
            ("a duplicate key", document("<dict><key>files</key><dict/><key>files</key><dict/></dict>")),
            ("broken XML", document("<dict><key>files</key><dict></dict>")),
            ("binary", try PropertyList(binary).data(format: .binary))
        ]
        for (name, data) in others {
            #expect(throughSink(data) == nil, "\(name)")
            expectSameAsTree(data, "\(name)")
        }
    }
}
