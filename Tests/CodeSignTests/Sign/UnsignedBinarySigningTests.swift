import CodeSign
import Foundation
import TestSupport
import Testing

/// The path that adds LC_CODE_SIGNATURE: a fixture binary with its signature stripped here is signed
/// to the very bytes the same binary with its signature is (RSA signatures and a fixed signing time
/// are deterministic).
@Suite(Fixtures.enabled) struct UnsignedBinarySigningTests {
    /// `bytes` (a Mach-O file, thin or fat, each slice's last load command LC_CODE_SIGNATURE) without its
    /// signatures: a fat file's slices stay where they were, each shorter.
    static func stripped(_ bytes: Data) throws -> Data {
        guard let fat = try MachOFile(data: bytes).fatHeader else { return try strippedSlice(bytes) }
        var out = Data()
        var architectures = fat.architectures
        for (index, architecture) in fat.architectures.enumerated() {
            let start = Int(architecture.offset)
            let slice = try strippedSlice(Data(bytes[start..<start + Int(architecture.size)]))
            out.append(Data(count: start - out.count))
            out.append(slice)
            architectures[index].size = UInt64(slice.count)
        }
        let header = FatHeader(is64: fat.is64, architectures: architectures).bytes()
        out.replaceSubrange(0..<header.count, with: header)
        return out
    }

    /// One slice without its signature: the command zeroed and uncounted, the slice cut where the
    /// signature started, __LINKEDIT ending there.
    static func strippedSlice(_ bytes: Data) throws -> Data {
        let slice = try #require(try MachOFile(data: bytes).slices.first)
        let command = try #require(slice.loadCommands.last)
        try #require(command.command == LoadCommandType.codeSignature && command.size == 16)
        let location = try #require(slice.codeSignature)
        let linkedit = try #require(slice.segment(named: "__LINKEDIT"))
        let segment = try #require(
            slice.loadCommands.first {
                [LoadCommandType.segment64, LoadCommandType.segment].contains($0.command) && Self.name(bytes, $0) == "__LINKEDIT"
            })
        var out = Data(bytes.prefix(Int(location.dataOffset)))
        func put<T: FixedWidthInteger>(_ value: T, at offset: Int) {
            withUnsafeBytes(of: value.littleEndian) { out.replaceSubrange(offset..<offset + MemoryLayout<T>.size, with: $0) }
        }
        out.replaceSubrange(command.offset..<command.offset + 16, with: [UInt8](repeating: 0, count: 16))
        put(UInt32(slice.loadCommands.count - 1), at: 16)
        put(out[20..<24].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } - 16, at: 20)
        let fileSize = UInt64(location.dataOffset) - linkedit.fileOffset
        if slice.is64 { put(fileSize, at: segment.offset + 48) } else { put(UInt32(fileSize), at: segment.offset + 36) }
        return out
    }

    static func name(_ bytes: Data, _ command: LoadCommand) -> String {
        String(decoding: bytes[command.offset + 8..<command.offset + 24].prefix { $0 != 0 }, as: UTF8.self)
    }

    /// Signing the signed copy again with the same options writes the same bytes too.
    @Test(arguments: ["ipa-server_Test_dev-xcode12.ipa", "ipa_analyzer_ios-simple-objc_dev.ipa"])
    func anUnsignedBinaryIsSignedToTheBytesOfTheSignedOne(ipa: String) throws {
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            let identity = try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile))
            let profile = try ProfileFile(
                path: try TestProfile(certificates: [identity.certificate.der]).write("p.mobileprovision", with: made))
            let options = BundleSigningOptions(
                identity: identity, appProfile: profile, now: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
            let signed = try ResignedFixture.unpack(ipa, to: folder.path("signed"))
            let unsigned = try ResignedFixture.unpack(ipa, to: folder.path("unsigned"))
            let executable = try #require(try ResignedFixture.info(unsigned)["CFBundleExecutable"]?.stringValue)
            let binary = unsigned + "/" + executable
            let original = try Data(contentsOf: URL(fileURLWithPath: binary))
            let bare = try Self.stripped(original)
            try bare.write(to: URL(fileURLWithPath: binary))
            let originalSlices = try MachOFile(data: original).slices
            let bareSlices = try MachOFile(data: bare).slices
            try #require(bareSlices.count == originalSlices.count)
            for (slice, before) in zip(bareSlices, originalSlices) {
                #expect(slice.codeSignature == nil && slice.loadCommands.count == before.loadCommands.count - 1, "\(slice.cpu)")
            }

            _ = try BundleSigner.sign(bundle: signed, options: options)
            _ = try BundleSigner.sign(bundle: unsigned, options: options)
            let fromSigned = try Data(contentsOf: URL(fileURLWithPath: signed + "/" + executable))
            let fromUnsigned = try Data(contentsOf: URL(fileURLWithPath: binary))
            #expect(fromUnsigned == fromSigned, "\(FixtureRederivation.difference(Array(fromUnsigned), Array(fromSigned)))")
            let result = try CodeSignatureVerifier().verify(path: unsigned)
            #expect(result.report.isValid, "\(result.report.problems.map(\.description))")
            for slice in try MachOFile(data: fromUnsigned).slices {
                #expect(slice.loadCommands.last?.command == LoadCommandType.codeSignature, "\(slice.cpu)")
            }

            // Signed again, our own signature is replaced by the same bytes.
            _ = try BundleSigner.sign(bundle: signed, options: options)
            #expect(try Data(contentsOf: URL(fileURLWithPath: signed + "/" + executable)) == fromSigned)
        }
    }
}

extension UnsignedBinarySigningTests {
    /// `bytes` with LC_SOURCE_VERSION commands added after its load commands (16 bytes each, the last
    /// one longer) until `left` bytes remain before the first section.
    static func padded(_ bytes: Data, leaving left: Int) throws -> Data {
        let slice = try #require(try MachOFile(data: bytes).slices.first)
        let sizeOfCommands = Int(bytes[20..<24].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
        let end = slice.headerSize + sizeOfCommands
        let first = try #require(
            slice.segments.flatMap(\.sections).filter { $0.size > 0 && $0.fileOffset > 0 }.map { Int($0.fileOffset) }.min())
        let fill = first - end - left
        try #require(fill >= 32, "room \(first - end)")
        var sizes = [Int](repeating: 16, count: fill / 16 - 1)
        sizes.append(fill - 16 * sizes.count)
        var commands: [UInt8] = []
        for size in sizes {
            var command = [UInt32(0x2a), UInt32(size)]
            commands += Data(bytes: &command, count: 8) + [UInt8](repeating: 0, count: size - 8)
        }
        var out = bytes
        out.replaceSubrange(end..<end + fill, with: commands)
        var fields = [UInt32(slice.loadCommands.count + sizes.count), UInt32(sizeOfCommands + fill)]
        out.replaceSubrange(16..<24, with: Data(bytes: &fields, count: 8))
        return out
    }

    /// LC_CODE_SIGNATURE needs 16 free bytes after the load commands: with 12 (load commands are 4-byte multiples) the binary is refused, with
    /// a hint and nothing written; with exactly 16 it is signed and verifies.
    @Test(arguments: [12, 16]) func theRoomForLCCodeSignature(left: Int) throws {
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            let identity = try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile))
            let profile = try ProfileFile(
                path: try TestProfile(certificates: [identity.certificate.der]).write("p.mobileprovision", with: made))
            let app = try ResignedFixture.unpack(CodeSealTamperTests.test, to: folder.path("app"))
            let bare = try Self.padded(try Self.stripped(try Data(contentsOf: URL(fileURLWithPath: app + "/Test"))), leaving: left)
            try bare.write(to: URL(fileURLWithPath: app + "/Test"))
            let output = folder.path("signed-binary")
            let parameters = CodeSigningParameters(
                identifier: "com.ineva.test-rtmp.Test", teamID: "ABCDE12345", hashTypes: [.sha256], execSegmentFlags: 1,
                specialSlots: SpecialSlotContents(), identity: identity, signingTime: Date())
            if left < 16 {
                #expect {
                    try MachOSigner.sign(file: app + "/Test", to: output) { _ in parameters }
                } throws: { error in
                    "\(error)"
                        == "\(app)/Test: slice arm64: has \(left) free bytes after its load commands, under the 16 LC_CODE_SIGNATURE needs; relink with -headerpad"
                }
                #expect(!FileManager.default.fileExists(atPath: output))
                #expect(try Data(contentsOf: URL(fileURLWithPath: app + "/Test")) == bare)
            } else {
                _ = try BundleSigner.sign(bundle: app, options: BundleSigningOptions(identity: identity, appProfile: profile))
                let result = try CodeSignatureVerifier().verify(path: app)
                #expect(result.report.isValid, "\(result.report.problems.map(\.description))")
                let slice = try #require(try MachOFile(contentsOf: app + "/Test").slices.first)
                #expect(slice.loadCommands.last?.command == LoadCommandType.codeSignature)
            }
        }
    }

    /// MachOSigner refuses an encrypted slice itself, whatever called it, and writes nothing.
    @Test func anEncryptedSliceIsRefusedByMachOSigner() throws {
        try withTemporaryFolder { folder in
            let app = try ResignedFixture.unpack(CodeSealTamperTests.test, to: folder.path("app"))
            var bytes = try Data(contentsOf: URL(fileURLWithPath: app + "/Test"))
            let slice = try #require(try MachOFile(data: bytes).slices.first)
            let command = try #require(slice.loadCommands.first { $0.command == LoadCommandType.encryptionInfo64 })
            bytes[command.offset + 16] = 1
            try bytes.write(to: URL(fileURLWithPath: app + "/Test"))
            let parameters = CodeSigningParameters(
                identifier: "com.ineva.test-rtmp.Test", teamID: nil, hashTypes: [.sha256], execSegmentFlags: 1,
                specialSlots: SpecialSlotContents(), identity: nil, signingTime: Date())
            #expect {
                try MachOSigner.sign(file: app + "/Test", to: app + "/Test") { _ in parameters }
            } throws: { error in
                "\(error)"
                    == "\(app)/Test: slice arm64: is encrypted (App Store FairPlay, cryptid 1); only a decrypted binary can be re-signed"
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: app + "/Test")) == bytes)
            let left = try FileManager.default.contentsOfDirectory(atPath: app).filter { $0.hasPrefix(".adhocbuild-tmp-") }
            #expect(left.isEmpty)
        }
    }
}
