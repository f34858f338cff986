import Foundation
import IPAKit
import SystemSupport
import TestSupport
import Testing

/// Hostile archives, made with Python's zipfile and patched by hand: each gets one clear error.
@Suite struct ZipArchiveReaderTests {
    /// Runs a Python snippet with `out` bound to the path to write; returns that path.
    func makeZip(_ folder: TemporaryFolder, _ name: String, _ script: String) throws -> String {
        let path = folder.path(name)
        let python = try #require(ProcessResult.which("python3"))
        let result = try ProcessResult.run(python, ["-c", "import sys, zipfile, struct\nout = sys.argv[1]\n" + script, path])
        try #require(result.status == 0, "python: \(result.stderrText)")
        return path
    }

    @Test func namesThatWouldWriteOutsideTheTargetAreRefused() throws {
        try withTemporaryFolder { folder in
            let absolute = try makeZip(
                folder, "absolute.ipa", "z = zipfile.ZipFile(out, 'w'); z.writestr(zipfile.ZipInfo('/etc/cron.d/x'), 'x'); z.close()")
            #expect(
                throws: Diagnostic.ipa("has an absolute path, which could write outside the target", file: absolute, entry: "/etc/cron.d/x")
            ) {
                try ZipArchiveReader(path: absolute)
            }
            let climbing = try makeZip(
                folder, "climb.ipa", "z = zipfile.ZipFile(out, 'w'); z.writestr('Payload/../../evil.sh', 'x'); z.close()")
            #expect(throws: Diagnostic.ipa("climbs out of the archive with '..'", file: climbing, entry: "Payload/../../evil.sh")) {
                try ZipArchiveReader(path: climbing)
            }
        }
    }

    @Test func duplicateAndEncryptedEntriesAreRefused() throws {
        try withTemporaryFolder { folder in
            let duplicate = try makeZip(
                folder, "dup.ipa",
                """
                import warnings; warnings.simplefilter('ignore')
                z = zipfile.ZipFile(out, 'w'); z.writestr('Payload/A.app/Info.plist', 'a'); z.writestr('Payload/A.app/Info.plist', 'b'); z.close()
                """)
            #expect(throws: Diagnostic.ipa("appears twice in the archive", file: duplicate, entry: "Payload/A.app/Info.plist")) {
                try ZipArchiveReader(path: duplicate)
            }
            // Set the "encrypted" flag in the local and central headers.
            let encrypted = try makeZip(
                folder, "enc.ipa",
                """
                z = zipfile.ZipFile(out, 'w'); z.writestr('secret.txt', 'x' * 100); z.close()
                data = bytearray(open(out, 'rb').read())
                for signature, offset in ((b'PK\\x03\\x04', 6), (b'PK\\x01\\x02', 8)):
                    at = data.find(signature); data[at + offset] |= 1
                open(out, 'wb').write(data)
                """)
            #expect(throws: Diagnostic.ipa("is encrypted, which ipas never are", file: encrypted, entry: "secret.txt")) {
                try ZipArchiveReader(path: encrypted)
            }
        }
    }

    @Test func truncatedAndDamagedArchivesGetClearErrors() throws {
        try withTemporaryFolder { folder in
            let good = try makeZip(
                folder, "good.ipa",
                "z = zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED); [z.writestr(f'f{i}.txt', 'data ' * 500) for i in range(20)]; z.close()"
            )
            let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
            let truncated = try folder.write("truncated.ipa", bytes.prefix(bytes.count / 2))
            #expect(throws: Diagnostic.ipa("is not a zip archive (no end of central directory; truncated?)", file: truncated)) {
                try ZipArchiveReader(path: truncated)
            }
            var damaged = bytes
            let central = try #require(damaged.range(of: Data([0x50, 0x4B, 0x01, 0x02])))
            damaged[central.lowerBound + 2] = 0x07  // break the first central directory signature
            let damagedPath = try folder.write("damaged.ipa", damaged)
            expectDiagnostic(IPAProblem.self) { try ZipArchiveReader(path: damagedPath) }
            let text = try folder.write("notes.ipa", "just text, not a zip")
            #expect(throws: Diagnostic.ipa("is not a zip archive (no end of central directory; truncated?)", file: text)) {
                try ZipArchiveReader(path: text)
            }
        }
    }

    @Test func corruptedDataFailsItsCRCWhenRead() throws {
        try withTemporaryFolder { folder in
            let path = try makeZip(
                folder, "crc.ipa",
                """
                z = zipfile.ZipFile(out, 'w', zipfile.ZIP_STORED); z.writestr('Payload/A.app/Info.plist', 'A' * 64); z.close()
                data = bytearray(open(out, 'rb').read()); at = data.find(b'AAAA'); data[at] = ord('B'); open(out, 'wb').write(data)
                """)
            let reader = try ZipArchiveReader(path: path)
            #expect(throws: Diagnostic.ipa("is damaged: CRC error", file: path, entry: "Payload/A.app/Info.plist")) {
                try reader.data(named: "Payload/A.app/Info.plist")
            }
        }
    }

    @Test func zipBombsAreRefusedBeforeAnythingIsInflated() throws {
        try withTemporaryFolder { folder in
            let bomb = try makeZip(
                folder, "bomb.ipa",
                """
                z = zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED, compresslevel=9); z.writestr('Payload/A.app/zeros', bytes(20 << 20)); z.close()
                """)
            var limits = ZipArchiveReader.Limits()
            limits.ratioCheckSize = 1 << 20
            do {
                _ = try ZipArchiveReader(path: bomb, limits: limits)
                Issue.record("a zip bomb was accepted")
            } catch let error as Diagnostic where error.is(IPAProblem.self) {
                #expect(error.entry == "Payload/A.app/zeros")
                #expect(error.message.hasSuffix("refusing a likely zip bomb"))
                #expect(error.isLimitExceeded)
            }
            limits = ZipArchiveReader.Limits()
            limits.maxTotalSize = 1 << 20
            #expect(throws: Diagnostic.ipa("would expand to more than 1048576 bytes (a zip bomb?)", file: bomb, isLimitExceeded: true)) {
                try ZipArchiveReader(path: bomb, limits: limits)
            }
            limits = ZipArchiveReader.Limits()
            limits.maxEntryReadSize = 1 << 20
            let reader = try ZipArchiveReader(path: bomb, limits: limits)
            #expect(
                throws: Diagnostic.ipa(
                    "is 20971520 bytes, more than the 1048576 read into memory", file: bomb, entry: "Payload/A.app/zeros",
                    isLimitExceeded: true)
            ) {
                try reader.data(named: "Payload/A.app/zeros")
            }
        }
    }

    /// An entry declaring 64 MiB from no compressed bytes at all: the zip-bomb message divided by the
    /// compressed size and crashed (`Division by zero`; found by the icon-paths fuzz harness).
    @Test func anEntryDeclaringSizeFromNoBytesIsAZipBombNotACrash() throws {
        try withTemporaryFolder { folder in
            let bomb = try makeZip(
                folder, "empty.ipa",
                """
                z = zipfile.ZipFile(out, 'w', zipfile.ZIP_STORED); z.writestr('Payload/A.app/zeros', b''); z.close()
                d = bytearray(open(out, 'rb').read())
                struct.pack_into('<I', d, d.find(b'PK\\x01\\x02') + 24, 64 << 20)
                struct.pack_into('<I', d, d.find(b'PK\\x03\\x04') + 22, 64 << 20)
                open(out, 'wb').write(d)
                """)
            #expect(
                throws: Diagnostic.ipa(
                    "expands 67108864 times (0 bytes to 67108864); refusing a likely zip bomb", file: bomb, entry: "Payload/A.app/zeros",
                    isLimitExceeded: true)
            ) {
                try ZipArchiveReader(path: bomb)
            }
        }
    }

    @Test func anArchiveWithoutAPayloadAppIsNotAnIPA() throws {
        try withTemporaryFolder { folder in
            let path = try makeZip(folder, "plain.ipa", "z = zipfile.ZipFile(out, 'w'); z.writestr('readme.txt', 'hello'); z.close()")
            #expect(throws: Diagnostic.ipa("has no Payload/<Name>.app, so it is not an ipa", file: path)) { try AppPackage.open(path) }
            let noInfo = try makeZip(folder, "noinfo.ipa", "z = zipfile.ZipFile(out, 'w'); z.writestr('Payload/A.app/A', 'bin'); z.close()")
            #expect(throws: Diagnostic.ipa("has no Info.plist", file: noInfo, entry: "Payload/A.app")) { try AppPackage.open(noInfo) }
        }
    }
}
