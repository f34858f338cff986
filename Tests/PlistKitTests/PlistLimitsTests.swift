import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// The size limit is checked before a document is read, for every format and for files.
@Suite struct PlistLimitsTests {
    @Test(arguments: ["<plist><string>abcdefgh</string></plist>", "{a = abcdefghijklmnop;}", "[\"abcdefghijklmnop\"]"])
    func aDocumentOverTheSizeLimitIsRefusedWhateverItsFormat(text: String) throws {
        let limits = PlistLimits(maxInputSize: 16)
        #expect(throws: Diagnostic.plist(.limitExceeded, "the file is \(text.utf8.count) bytes, more than the limit of 16")) {
            try PropertyList(data: Data(text.utf8), limits: limits)
        }
        #expect(throws: Never.self) { try PropertyList(data: Data(text.utf8), limits: PlistLimits(maxInputSize: 64)) }
    }

    @Test func aFileOverTheSizeLimitIsRefusedNamingTheFile() throws {
        try withTemporaryFolder { folder in
            let path = try folder.create("Big.plist", Data(repeating: 0x20, count: 100) + Data("<plist><true/></plist>".utf8))
            #expect(throws: Diagnostic.plist(.limitExceeded, "the file is 122 bytes, more than the limit of 50", file: path)) {
                try PropertyList(contentsOf: path, limits: PlistLimits(maxInputSize: 50))
            }
        }
    }
}
