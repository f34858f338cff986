import Foundation
import PlistKit
import SystemSupport

/// An entitlements blob: XML (magic `0xfade7171`, special slot 5) or DER (magic `0xfade7172`,
/// special slot 7). The payload is kept byte for byte; ``entitlements()`` reads it.
public struct EntitlementsBlob: Sendable, Equatable {
    public enum Format: Sendable, Equatable {
        case xml
        case der

        public var magic: UInt32 { self == .xml ? BlobMagic.entitlements : BlobMagic.derEntitlements }
    }

    public var format: Format
    /// The XML plist or DER bytes after the 8-byte header.
    public var payload: [UInt8]

    public init(format: Format, payload: [UInt8]) {
        self.format = format
        self.payload = payload
    }

    /// Parses either kind of entitlements blob.
    public init(bytes: [UInt8]) throws {
        let reader = ByteReader(bytes)
        let header = try BlobHeader(reader, at: 0, what: "entitlements blob")
        switch header.magic {
        case BlobMagic.entitlements: format = .xml
        case BlobMagic.derEntitlements: format = .der
        default: throw Diagnostic.codeSign(at: 0, "entitlements blob has magic 0x\(String(header.magic, radix: 16))")
        }
        payload = try reader.slice(8, header.length - 8, what: "entitlements")
    }

    /// The XML blob for `entitlements`, as Xcode writes the `.xcent` file the signer embeds: an XML
    /// plist with tabs, dictionary keys sorted as Apple's writers sort them.
    public static func xml(_ entitlements: PlistValue) throws -> EntitlementsBlob {
        do {
            return EntitlementsBlob(format: .xml, payload: Array(try XMLPlistWriter(sortKeys: true).write(entitlements)))
        } catch {
            throw Diagnostic.codeSign("entitlements cannot be written as XML: \(error)", location: "entitlements")
        }
    }

    /// The DER blob for `entitlements`, encoded as Apple's signer encodes it: in the layout Xcode
    /// writes today unless another is asked for (to rebuild an older signature byte for byte).
    public static func der(_ entitlements: PlistValue, layout: DEREntitlements.Layout = .current) throws -> EntitlementsBlob {
        EntitlementsBlob(format: .der, payload: try DEREntitlements.encode(entitlements, layout: layout))
    }

    /// The blob's bytes.
    public func bytes() -> [UInt8] {
        var out = ByteWriter()
        out.u32be(format.magic)
        out.u32be(UInt32(truncatingIfNeeded: 8 + payload.count))
        out.append(payload)
        return out.bytes
    }

    /// The entitlements the payload holds, XML read with `limits`.
    public func entitlements(limits: PlistLimits = .default) throws -> PlistValue {
        switch format {
        case .xml:
            do {
                return try PropertyList(data: Data(payload), limits: limits).value
            } catch {
                throw Diagnostic.codeSign(.malformed, "XML entitlements are not a property list: \(error)", location: "entitlements")
            }
        case .der:
            return try DEREntitlements.decode(payload)
        }
    }
}
