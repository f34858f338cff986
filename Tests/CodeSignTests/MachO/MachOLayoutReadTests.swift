import CodeSign
import Foundation
import SystemSupport
import TestSupport
import Testing

/// A Mach-O parsed without holding it (`MachOFile(size:read:)`, as the verifier does over a mapped
/// executable) reads the same layout and signature as a whole parse, asking only for headers, load
/// commands and signatures, and refuses what the whole parse refuses.
@Suite struct MachOLayoutReadTests {
    @Test func layoutReadsMatchWholeReadsAndTouchOnlyHeadersAndSignatures() throws {
        let python = try #require(ProcessResult.which("python3"))
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/fuzz_codesign_seeds.py").path
        try withTemporaryFolder { folder in
            let run = try ProcessResult.run(python, [script, "made", folder.url.path])
            try #require(run.status == 0, "\(run.stderrText)")
            for name in ["macho-made-thin", "macho-made-fat32", "macho-made-fat64"] {
                let bytes = [UInt8](try Data(contentsOf: folder.url.appendingPathComponent(name)))
                var asked = 0
                let layout = try MachOFile(size: bytes.count) { offset, count in
                    asked += count
                    return Array(bytes[offset..<min(offset + count, bytes.count)])
                }
                let whole = try MachOFile(bytes: bytes)
                #expect(layout.fatHeader == whole.fatHeader, "\(name)")
                #expect(layout.slices.count == whole.slices.count)
                for (a, b) in zip(layout.slices, whole.slices) {
                    #expect(!a.hasAllBytes && b.hasAllBytes)
                    #expect(a.size == b.bytes.count && a.fileOffset == b.fileOffset && a.segments == b.segments)
                    #expect(a.signatureBytes.map(Array.init) == b.signatureBytes.map(Array.init))
                    #expect(try a.embeddedSignature()?.bytes() == (try b.embeddedSignature()?.bytes()))
                }
                // The 4 KiB of code are never asked for.
                #expect(asked < bytes.count - 3000, "\(name): \(asked) of \(bytes.count) bytes read")
            }
        }
    }

    @Test func layoutReadsRefuseWhatWholeReadsRefuseWithTheSameMessage() throws {
        // Cut short: the signature LC_CODE_SIGNATURE points at runs past the end; a header alone; nothing.
        let thin = MachOReaderTests.thin()
        for cut in [thin.count - 8, 40, 0] {
            let bytes = Array(thin.prefix(cut))
            let read = { (offset: Int, count: Int) in Array(bytes[min(offset, bytes.count)..<min(offset + count, bytes.count)]) }
            var messages: [String] = []
            for parse in [{ try MachOFile(bytes: bytes) }, { try MachOFile(size: bytes.count, read: read) }] {
                do {
                    _ = try parse()
                    Issue.record("\(cut) bytes: no error")
                } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
                    messages.append(error.description)
                }
            }
            #expect(messages.count == 2 && messages[0] == messages[1], "\(cut) bytes: \(messages)")
        }
    }
}
