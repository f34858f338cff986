import Foundation

/// Base64 as plists use it: standard alphabet, `=` padding, white space allowed anywhere when reading.
/// A final group must be padded: Core Foundation drops an unpadded one, so reading it would
/// give bytes Apple's tools do not see.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, char) in alphabet.enumerated() { table[Int(char)] = UInt8(value) }
        for space in [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C] { table[space] = 0xFE }
        table[Int(UInt8(ascii: "="))] = 0xFD
        return table
    }()

    /// The room ``decode(_:into:)`` needs for `count` bytes of text.
    static func decodedCapacity(_ count: Int) -> Int { count / 4 * 3 + 3 }

    /// Decodes `bytes` into `output` (``decodedCapacity(_:)`` bytes of room) and returns how many
    /// bytes it wrote, or the offset of the first byte that is not base64 or white space: a reader
    /// that hands the bytes on (a plist's `<data>` to its sink) needs no allocation for them.
    ///
    /// Between groups, four characters of the alphabet in a row (the whole of a digest's text
    /// but its padding and the white space around it) are taken as one group at once; anything
    /// else goes one character at a time.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) -> Result<Int, DecodeFailure> {
        var written = 0
        var quad: UInt32 = 0
        var filled = 0
        var padding = 0
        var offset = 0
        let count = bytes.count
        return decodeTable.withUnsafeBufferPointer { table -> Result<Int, DecodeFailure> in
            /// Writes the three bytes of a whole group of four characters.
            @inline(__always) func emit(_ group: UInt32) {
                output[written] = UInt8(truncatingIfNeeded: group >> 16)
                output[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                output[written + 2] = UInt8(truncatingIfNeeded: group)
                written += 3
            }
            while offset < count {
                if filled == 0 && padding == 0 && offset + 4 <= count {
                    let a = table[Int(bytes[offset])], b = table[Int(bytes[offset + 1])]
                    let c = table[Int(bytes[offset + 2])], d = table[Int(bytes[offset + 3])]
                    // Values of the alphabet are below 64; white space, `=` and the rest are not.
                    if (a | b | c | d) < 64 {
                        emit(UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d))
                        offset += 4
                        continue
                    }
                }
                let byte = bytes[offset]
                let value = table[Int(byte)]
                switch value {
                case 0xFE:
                    break
                case 0xFD:
                    padding += 1
                    if padding > 2 || filled < 2 { return .failure(DecodeFailure(offset: offset, byte: byte)) }
                case 0xFF:
                    return .failure(DecodeFailure(offset: offset, byte: byte))
                default:
                    if padding > 0 { return .failure(DecodeFailure(offset: offset, byte: byte)) }
                    quad = quad << 6 | UInt32(value)
                    filled += 1
                    if filled == 4 {
                        emit(quad)
                        quad = 0
                        filled = 0
                    }
                }
                offset += 1
            }
            return finish(written: written, quad: quad, filled: filled, padding: padding, count: count, output: output)
        }
    }

    /// The end of ``decode(_:into:)``: the last, padded group.
    private static func finish(
        written: Int, quad: UInt32, filled: Int, padding: Int, count: Int, output: UnsafeMutablePointer<UInt8>
    ) -> Result<Int, DecodeFailure> {
        var written = written
        if filled >= 2 && filled + padding != 4 {
            return .failure(DecodeFailure(offset: count, byte: nil, isUnpadded: true))
        }
        switch filled {
        case 0: break
        case 2:
            output[written] = UInt8(truncatingIfNeeded: quad >> 4)
            written += 1
        case 3:
            output[written] = UInt8(truncatingIfNeeded: quad >> 10)
            output[written + 1] = UInt8(truncatingIfNeeded: quad >> 2)
            written += 2
        default:
            return .failure(DecodeFailure(offset: count, byte: nil))
        }
        return .success(written)
    }

    struct DecodeFailure: Error {
        /// Offset of the offending byte in the input, or the input's length for a truncated group.
        let offset: Int
        let byte: UInt8?
        /// True when the input ends in a group of two or three characters without `=` padding.
        var isUnpadded = false
    }

    /// Encodes `bytes` into lines of at most `lineLength` characters, each preceded by `indent`
    /// tabs and followed by a newline; a `lineLength` of 0 means one unbroken run with no newline.
    static func encode(_ bytes: UnsafeRawBufferPointer, lineLength: Int = 0, indent: Int = 0, into out: inout [UInt8]) {
        let length = encodedLength(of: bytes.count, lineLength: lineLength, indent: indent)
        out.append(
            contentsOf: [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
                initialized = encode(bytes, lineLength: lineLength, indent: indent, to: buffer.baseAddress!)
            })
    }

    /// How many bytes `encode` writes for `count` input bytes.
    static func encodedLength(of count: Int, lineLength: Int, indent: Int) -> Int {
        let characters = (count + 2) / 3 * 4
        guard lineLength > 0 else { return characters }
        return characters + (characters + lineLength - 1) / lineLength * (indent + 1)
    }

    /// Encodes as `encode(_:lineLength:indent:into:)` does, at `out`, which has room for
    /// `encodedLength(of:lineLength:indent:)` bytes; returns how many it wrote.
    static func encode(
        _ bytes: UnsafeRawBufferPointer, lineLength: Int, indent: Int,
        to out: UnsafeMutablePointer<UInt8>
    ) -> Int {
        alphabet.withUnsafeBufferPointer { alphabet in
            var written = 0
            var column = 0
            @inline(__always) func emit(_ char: UInt8) {
                if lineLength > 0 && column == 0 {
                    (out + written).update(repeating: 0x09, count: indent)
                    written += indent
                }
                out[written] = char
                written += 1
                column += 1
                if lineLength > 0 && column == lineLength { out[written] = 0x0A; written += 1; column = 0 }
            }
            var index = 0
            while index + 3 <= bytes.count {
                let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                emit(alphabet[Int(group >> 18 & 63)])
                emit(alphabet[Int(group >> 12 & 63)])
                emit(alphabet[Int(group >> 6 & 63)])
                emit(alphabet[Int(group & 63)])
                index += 3
            }
            let remaining = bytes.count - index
            if remaining > 0 {
                let group = UInt32(bytes[index]) << 16 | (remaining == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                emit(alphabet[Int(group >> 18 & 63)])
                emit(alphabet[Int(group >> 12 & 63)])
                emit(remaining == 2 ? alphabet[Int(group >> 6 & 63)] : UInt8(ascii: "="))
                emit(UInt8(ascii: "="))
            }
            if lineLength > 0 && column > 0 { out[written] = 0x0A; written += 1 }
            return written
        }
    }

    static func encode(_ data: Data, into out: inout [UInt8]) {
        data.withUnsafeBytes { encode($0, into: &out) }
    }
}
