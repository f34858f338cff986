/// A length of time as people write it on a command line: a whole number and a unit, `30d`, `12h`,
/// `90m`, `3600s` (or combined, `1d12h`); a bare number is seconds.
public struct TimeSpan: Sendable, Equatable, Hashable, CustomStringConvertible {
    public let seconds: Int

    public init(seconds: Int) { self.seconds = seconds }

    /// Reads `30d`, `12h`, `90m`, `45s`, `1d12h` or `3600`; nil for anything else (no unit it does not
    /// know, no sign, no fraction, nothing that overflows).
    public init?(_ text: String) {
        guard !text.isEmpty else { return nil }
        var total = 0
        var number: Int?
        for character in text {
            if let digit = character.wholeNumberValue, character.isASCII {
                let (times, overflow1) = (number ?? 0).multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(digit)
                guard !overflow1 && !overflow2 else { return nil }
                number = sum
                continue
            }
            guard let value = number, let unit = Self.units[character] else { return nil }
            let (product, overflow1) = value.multipliedReportingOverflow(by: unit)
            let (sum, overflow2) = total.addingReportingOverflow(product)
            guard !overflow1 && !overflow2 else { return nil }
            total = sum
            number = nil
        }
        if let value = number {
            // A bare number is seconds, but only alone: `1d30` is a mistake, not 1 day and 30 s.
            guard total == 0 else { return nil }
            total = value
        }
        seconds = total
    }

    static let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]

    /// The span in the largest whole units: `7d`, `36h`, `90s`.
    public var description: String {
        for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60)] where seconds > 0 && seconds % size == 0 {
            return "\(seconds / size)\(unit)"
        }
        return "\(seconds)s"
    }
}
