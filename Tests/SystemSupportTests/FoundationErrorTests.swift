import Foundation
import SystemSupport
import TestSupport
import Testing

/// Issue 31, messages: a Foundation error is one line naming the file and the reason, never
/// `Error Domain=NSCocoaErrorDomain Code=514 "…" UserInfo={…}`.
@Suite struct FoundationErrorTests {
    /// What `FileManager` throws for a name longer than a file system takes (Code=514 with an
    /// underlying ENAMETOOLONG).
    static func tooLongError(in folder: TemporaryFolder) -> (error: any Error, path: String)? {
        let path = folder.path(String(repeating: "n", count: 300))
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            return nil
        } catch {
            return (error, path)
        }
    }

    @Test func aFoundationErrorIsReportedAsItsPathAndTheSystemsReason() throws {
        try withTemporaryFolder { folder in
            let failure = try #require(Self.tooLongError(in: folder))
            #expect("\(failure.error)".contains("NSCocoaErrorDomain"), "the dump this replaces")
            let lines = reportLines(for: failure.error)
            #expect(lines == ["\(failure.path): File name too long"])
            let error = FoundationError.fileError(failure.error, action: "cannot be made", file: "out")
            #expect(error.description == "out: cannot be made: File name too long")
        }
    }

    @Test func aCocoaCodeWithoutASystemReasonIsSaidInWords() {
        let invalidName = CocoaError(.fileWriteInvalidFileName, userInfo: [NSFilePathErrorKey: "dist/x"])
        #expect(reportLines(for: invalidName) == ["dist/x: the name is not valid here (too long, or not UTF-8)"])
        #expect(FoundationError.reason(CocoaError(.fileReadNoSuchFile)) == "no such file or folder")
        #expect(FoundationError.reason(CocoaError(.fileWriteFileExists)) == "something with that name is there already")
        #expect(FoundationError.reason(NSError(domain: NSPOSIXErrorDomain, code: Int(ENOSPC))) == "No space left on device")
        // Copying a socket: Code=512 with nothing beneath it.
        #expect(FoundationError.reason(CocoaError(.fileWriteUnknown)) == "Foundation gives no reason (its error 512)")
    }

    @Test func ourOwnErrorsAndOthersStayOneLine() {
        struct Foreign: Error, CustomStringConvertible { var description: String { "two\nlines" } }
        #expect(FoundationError.line(Diagnostic.io("is bad", file: "a")) == "a: is bad")
        #expect(FoundationError.line(Foreign()) == "two\\u{0A}lines")
        #expect(!FoundationError.isFoundationError(Diagnostic.io("is bad")))
    }
}
