import CodeSign
import Foundation
import SystemSupport
import TestSupport
import Testing

@Suite struct RequirementTests {
    static let appleGeneric = "anchor apple generic and certificate leaf[subject.CN] = "
    static let wwdr = " and certificate 1[field.1.2.840.113635.100.6.2.1] /* exists */"

    /// What `codesign -d -r-` prints for each fixture binary, written from the blob format.
    static let designated: [String: String] = [
        "Payload/Demo.app/Demo":
            "identifier \"com.icyleaf.test.Demo\" and \(appleGeneric)\"iPhone Distribution: Niceliving Beijing Technology Co. Ltd.\"\(wwdr)",
        "Payload/Demo.app/PlugIns/Notification.appex/Notification":
            "identifier \"com.icyleaf.test.Demo.Notification\" and \(appleGeneric)\"iPhone Distribution: Niceliving Beijing Technology Co. Ltd.\"\(wwdr)",
        "Payload/bundle.app/bundle":
            "identifier \"com.icyleaf.bundle\" and \(appleGeneric)\"iPhone Distribution: QYER Inc (5PJA6N5A3B)\"\(wwdr)",
        "Payload/AppInfoDemo.app/AppInfoDemo":
            "identifier \"com.icyleaf.AppInfoDemo\" and \(appleGeneric)\"iPhone Developer: Yi Xiao (54P9L43M84)\"\(wwdr)",
        // fastlane replaced the signer with a self-signed certificate: a non-Apple anchor by hash.
        "Payload/very-capable-app.app/very-capable-app":
            "identifier \"org.fastlane.very-capable-app\" and certificate root = H\"c8d1aac67c23186501a9ddc93356d8e14ae29e14\"",
        "Payload/Test.app/Test":
            "identifier \"com.ineva.test-rtmp.Test\" and \(appleGeneric)\"Apple Development: Qin Junru (CSBXB8DEZA)\"\(wwdr)",
        "Payload/ios-simple-objc.app/ios-simple-objc":
            "identifier \"Bitrise.ios-simple-objc\" and \(appleGeneric)\"iPhone Developer: Bitrise Bot (VV2J4SV8V4)\"\(wwdr)",
        "Payload/BitBarSampleApp.app/BitBarSampleApp":
            "identifier \"org.reactjs.native.example.BitBarSampleApp\" and \(appleGeneric)\"Apple Development: Michał Przytarski (X737YV7J27)\"\(wwdr)",
        "Payload/Permissions.app/Permissions":
            "identifier \"sh.calaba.Permissions\" and \(appleGeneric)\"iPhone Developer: Karl Krukow (YTTN6Y2QS9)\"\(wwdr)",
        // Xcode 6 also wrote a library requirement: the embedded Swift dylibs, each signed by Apple.
        "Payload/SimpleSaucyApp.app/SimpleSaucyApp":
            "identifier \"com.sauceio.SimpleSaucyApp\" and \(appleGeneric)\"\(sauce)\"\(wwdr)\nlibrary => "
            + swiftLibraries.map { "identifier \"com.apple.dt.runtime.\($0)\" and anchor apple" }.joined(separator: " or ")
    ].merging(
        swiftLibraries.map {
            (
                "Payload/SimpleSaucyApp.app/Frameworks/lib\($0).dylib",
                "identifier \"com.apple.dt.runtime.\($0)\" and \(appleGeneric)\"\(sauce)\"\(wwdr)"
            )
        }, uniquingKeysWith: { first, _ in first })
    static let sauce = "iPhone Distribution: SAUCE LABS INC (JWKXD469L2)"
    static let swiftLibraries = [
        "swiftCore", "swiftCoreGraphics", "swiftCoreImage", "swiftDarwin", "swiftDispatch", "swiftFoundation", "swiftObjectiveC",
        "swiftSecurity", "swiftUIKit"
    ]

    @Test(Fixtures.enabled) func fixturesPrintTheDesignatedRequirementCodesignShows() throws {
        var checked = 0
        for code in try FixtureCode.all() {
            for slice in try MachOFile(data: code.bytes).slices {
                let requirements = try #require(try slice.embeddedSignature()?.requirements)
                let expected = try #require(RequirementTests.designated[code.entry], "\(code)")
                #expect(requirements.description == "designated => \(expected)\n", "\(code) \(slice.cpu)")
                checked += 1
            }
        }
        #expect(checked == 34)
    }

    static func data(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func orInsideAndIsParenthesisedAndAndInsideOrIsNot() {
        let a = RequirementExpression.identifier(Self.data("a.b"))
        let b = RequirementExpression.anchorApple
        let c = RequirementExpression.certificateTrusted(slot: 2)
        #expect(RequirementText.text(of: .and(a, .or(b, c))) == "identifier \"a.b\" and (anchor apple or certificate 2 trusted)")
        #expect(RequirementText.text(of: .or(.and(a, b), c)) == "identifier \"a.b\" and anchor apple or certificate 2 trusted")
        #expect(RequirementText.text(of: .not(.or(b, c))) == "! (anchor apple or certificate 2 trusted)")
    }

    @Test func dataPrintsBareQuotedOrInHex() {
        #expect(RequirementText.text(of: .identifier(Self.data("Terminal"))) == "identifier Terminal")
        #expect(RequirementText.text(of: .identifier(Self.data("anchor"))) == "identifier \"anchor\"")
        #expect(RequirementText.text(of: .identifier(Self.data("9lives"))) == "identifier \"9lives\"")
        #expect(RequirementText.text(of: .identifier(Self.data("say \"hi\""))) == "identifier \"say \\\"hi\\\"\"")
        #expect(RequirementText.text(of: .identifier([0, 1, 0xff])) == "identifier 0x0001ff")
        #expect(
            RequirementText.text(of: .entitlementField(key: Self.data("com.apple.x"), match: .beginsWith(Self.data("Apple "))))
                == "entitlement[com.apple.x] = \"Apple \"*")
    }

    @Test func everyOpcodeWritesBackToTheSameExpression() throws {
        let d = Self.data("v")
        let all: [RequirementExpression] = [
            .never, .always, .identifier(d), .anchorApple, .anchorAppleGeneric, .anchorHash(slot: -1, hash: [1, 2, 3]),
            .infoKeyValue(key: d, value: Self.data("w1")), .cdhash([9, 9]), .not(.always), .infoKeyField(key: d, match: .exists),
            .certificateField(slot: 0, field: Self.data("subject.O"), match: .contains(d)), .certificateTrusted(slot: 3), .anchorTrusted,
            .certificateGeneric(slot: 1, oid: [0x2a, 0x86, 0x48], match: .absent), .entitlementField(key: d, match: .lessEqual(d)),
            .certificatePolicy(slot: 0, oid: [0x2a], match: .greaterThan(d)), .namedAnchor(d), .namedCode(d), .platform(2), .notarized,
            .certificateFieldDate(slot: 0, oid: [0x2a], match: .onOrAfter(-5)), .legacyDeveloperID
        ]
        let tree = all.dropFirst().reduce(all[0]) { RequirementExpression.or($0, $1) }
        let requirement = Requirement(tree)
        let read = try Requirement(bytes: requirement.bytes())
        #expect(read == requirement)
        #expect(read.bytes() == requirement.bytes())
        let set = RequirementSet([(RequirementSet.Kind.designated, requirement), (RequirementSet.Kind.library, Requirement(.anchorApple))])
        #expect(try RequirementSet(bytes: set.bytes()) == set)
        #expect(set.description.hasSuffix("\nlibrary => anchor apple\n"))
    }

    @Test func hostileRequirementsAreOneLineErrors() {
        let truncated = Array(Requirement(.identifier(Self.data("com.example"))).bytes().dropLast(4))
        var lying = truncated
        lying[7] = UInt8(truncated.count)
        expectCodeSign(.malformed) { try Requirement(bytes: truncated) }
        expectCodeSign(.malformed) { try Requirement(bytes: lying) }
        // An `and` nested far deeper than any real requirement stops at the depth limit.
        var deep = ByteWriterForTests()
        deep.words([0xfade_0c00, 0, 1] + Array(repeating: 6, count: 10_000) + [1])
        deep.setLength()
        expectCodeSign(.malformed) { try Requirement(bytes: deep.bytes) }
        // Unknown opcode.
        var unknown = ByteWriterForTests()
        unknown.words([0xfade_0c00, 0, 1, 0x99])
        unknown.setLength()
        do {
            _ = try Requirement(bytes: unknown.bytes)
            Issue.record("an unknown opcode was accepted")
        } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
            #expect(error.description == "byte 0xc: requirement opcode 0x99 is unknown")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

/// Big-endian words for hand-made blobs.
struct ByteWriterForTests {
    var bytes: [UInt8] = []
    mutating func words(_ values: [UInt32]) {
        for value in values { bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)] }
    }
    /// Writes the blob length at bytes 4..<8.
    mutating func setLength() {
        let length = UInt32(bytes.count)
        bytes.replaceSubrange(
            4..<8, with: [UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)])
    }
}
