/// Content shaped like what apps hold, made from a seed: small text files, logs, machine code.
/// The package-size tests build app trees from it, and the deflate tests pick methods by it.
public enum AppLikeContent {
    /// A deterministic generator (64-bit LCG).
    public struct Generator {
        public var state: UInt64
        public init(state: UInt64) { self.state = state }
        public mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        public mutating func word() -> String {
            [
                "shout", "out", "friends", "reaction", "voice", "message", "timeline", "profile", "settings", "share",
                "account", "follow", "badge", "avatar", "upload", "camera"
            ][below(16)]
        }
        public mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
    }

    /// Text of `size` bytes in one of three small-file styles.
    public static func smallText(_ style: Int, size: Int, _ random: inout Generator) -> String {
        var text = style == 2 ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n" : ""
        var index = 0
        while text.utf8.count < size {
            switch style {
            case 0: text += "\"\(random.word())_\(index)\" = \"\(random.word()) \(random.word()) \(random.word())\";\n"
            case 1: text += "\"\(random.word())\(index)\": \(random.below(1_000_000)), "
            default: text += "\t<key>\(random.word())\(index)</key>\n\t<string>\(random.word())-\(random.below(1000))</string>\n"
            }
            index += 1
        }
        return text
    }

    /// Log-like lines: times, levels, words and numbers.
    public static func logText(size: Int, _ random: inout Generator) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(size + 200)
        var second = 1_700_000_000
        while out.count < size {
            second += random.below(4)
            out += Array("\(second).\(random.below(1000)) \(["INFO", "DEBUG", "WARN"][random.below(3)]) [\(random.word())] ".utf8)
            for _ in 0..<(3 + random.below(10)) { out += Array("\(random.word()) ".utf8) }
            out += Array("id=\(random.below(100_000_000))\n".utf8)
        }
        return Array(out.prefix(size))
    }

    /// Machine-code-like bytes: 4-byte "instructions" from a skewed vocabulary, some random.
    public static func machineCode(size: Int, _ random: inout Generator) -> [UInt8] {
        let vocabulary = (0..<4096).map { _ in random.bytes(4) }
        var out: [UInt8] = []
        out.reserveCapacity(size + 8)
        while out.count < size {
            if random.below(4) == 0 { out += random.bytes(8); continue }
            // Skewed towards the first words: the product of two uniform draws.
            out += vocabulary[random.below(64) * random.below(64)]
        }
        return Array(out.prefix(size))
    }
}
