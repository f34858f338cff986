import CodeSign
import Foundation
import TestSupport
import Testing

/// The path that adds LC_CODE_SIGNATURE: a fixture binary with its signature stripped here is signed
/// to the very bytes the same binary with its signature is (RSA signatures and a fixed signing time
/// are deterministic).
@Suite(Fixtures.enabled) struct UnsignedBinarySigningTests {
    /// `bytes` (a thin 64-bit Mach-O whose last load command is LC_CODE_SIGNATURE) without its signature:
    /// the command zeroed and uncounted, the file cut where the signature started, __LINKEDIT ending there.
    static func stripped(_ bytes: Data) throws -> Data {
        let file = try MachOFile(data: bytes)
        try #require(file.fatHeader == nil)
        let slice = try #require(file.slices.first)
        let command = try #require(slice.loadCommands.last)
        try #require(command.command == LoadCommandType.codeSignature && command.size == 16)
        let location = try #require(slice.codeSignature)
        let linkedit = try #require(slice.segment(named: "__LINKEDIT"))
        let segment = try #require(
            slice.loadCommands.first { $0.command == LoadCommandType.segment64 && $0.offset > 0 && Self.name(bytes, $0) == "__LINKEDIT" })
        var out = Data(bytes.prefix(Int(location.dataOffset)))
        func put<T: FixedWidthInteger>(_ value: T, at offset: Int) {
            withUnsafeBytes(of: value.littleEndian) { out.replaceSubrange(offset..<offset + MemoryLayout<T>.size, with: $0) }
        }
        out.replaceSubrange(command.offset..<command.offset + 16, with: [UInt8](repeating: 0, count: 16))
        put(UInt32(slice.loadCommands.count - 1), at: 16)
        put(out[20..<24].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } - 16, at: 20)
        put(UInt64(location.dataOffset) - linkedit.fileOffset, at: segment.offset + 48)
        return out
    }

    static func name(_ bytes: Data, _ command: LoadCommand) -> String {
        String(decoding: bytes[command.offset + 8..<command.offset + 24].prefix { $0 != 0 }, as: UTF8.self)
    }

    @Test func anUnsignedBinaryIsSignedToTheBytesOfTheSignedOne() throws {
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            let identity = try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile))
            let profile = try ProfileFile(
                path: try TestProfile(certificates: [identity.certificate.der]).write("p.mobileprovision", with: made))
            let options = BundleSigningOptions(
                identity: identity, appProfile: profile, now: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
            let signed = try ResignedFixture.unpack(CodeSealTamperTests.test, to: folder.path("signed"))
            let unsigned = try ResignedFixture.unpack(CodeSealTamperTests.test, to: folder.path("unsigned"))
            let binary = unsigned + "/Test"
            let original = try Data(contentsOf: URL(fileURLWithPath: binary))
            let bare = try Self.stripped(original)
            try bare.write(to: URL(fileURLWithPath: binary))
            let slice = try #require(try MachOFile(data: bare).slices.first)
            let originalCount = try MachOFile(data: original).slices[0].loadCommands.count
            #expect(slice.codeSignature == nil && slice.loadCommands.count == originalCount - 1)

            _ = try BundleSigner.sign(bundle: signed, options: options)
            _ = try BundleSigner.sign(bundle: unsigned, options: options)
            let fromSigned = try Data(contentsOf: URL(fileURLWithPath: signed + "/Test"))
            let fromUnsigned = try Data(contentsOf: URL(fileURLWithPath: binary))
            #expect(
                fromUnsigned == fromSigned, "\(FixtureRederivation.difference(Array(fromUnsigned), Array(fromSigned)))")
            let result = try CodeSignatureVerification().verify(path: unsigned)
            #expect(result.report.isValid, "\(result.report.problems.map(\.description))")
            let added = try #require(try MachOFile(data: fromUnsigned).slices.first)
            #expect(added.loadCommands.last?.command == LoadCommandType.codeSignature)
            #expect(added.codeSignature.map { Int($0.dataOffset) } == bare.count)
        }
    }
}
