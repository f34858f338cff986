import Foundation
import SystemSupport

/// A plist date: seconds since 2001-01-01T00:00:00Z, exactly as the binary format stores it.
///
/// XML plists hold whole seconds only (Apple's writers truncate), so a date with a
/// fraction survives binary round trips exactly and XML round trips to the second.
public struct PlistDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Seconds since 2001-01-01T00:00:00Z (Core Foundation's absolute time).
    public var secondsSinceReferenceDate: Double

    public init(secondsSinceReferenceDate: Double) {
        self.secondsSinceReferenceDate = secondsSinceReferenceDate
    }

    public init(_ date: Date) {
        secondsSinceReferenceDate = date.timeIntervalSinceReferenceDate
    }

    /// Seconds between 1970-01-01 and 2001-01-01.
    static let unixEpochOffset: Double = 978_307_200

    public var date: Date { Date(timeIntervalSinceReferenceDate: secondsSinceReferenceDate) }

    public static func == (lhs: PlistDate, rhs: PlistDate) -> Bool {
        lhs.secondsSinceReferenceDate.bitPattern == rhs.secondsSinceReferenceDate.bitPattern
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(secondsSinceReferenceDate.bitPattern) }

    public static func < (lhs: PlistDate, rhs: PlistDate) -> Bool {
        lhs.secondsSinceReferenceDate < rhs.secondsSinceReferenceDate
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, truncated to the second as Apple writes it.
    public var iso8601: String {
        var out: [UInt8] = []
        appendISO8601(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `iso8601` to `out` without making a string.
    public func appendISO8601(to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: PlistDate.maximumISO8601Length) { buffer in
            out.append(contentsOf: buffer[..<writeISO8601(to: buffer.baseAddress!)])
        }
    }

    /// Whether the date has a four-digit year (-9999 to 9999), the dates XML's `<date>` (and
    /// JSON's ISO 8601 string) can carry and be read back from; not NaN, an infinity, or a
    /// year like 11507.
    public var hasISO8601Form: Bool {
        let unix = (secondsSinceReferenceDate + PlistDate.unixEpochOffset).rounded(.down)
        return unix.isFinite && unix >= -377_705_116_800 && unix <= 253_402_300_799
    }

    /// The error for a date without an ISO 8601 form, at `keyPath`, in a format that needs one.
    static func unrepresentable(_ date: PlistDate, in format: String, keyPath: String) -> Diagnostic {
        let seconds = date.secondsSinceReferenceDate
        let what = seconds.isNaN ? "NaN" : seconds.isInfinite ? (seconds < 0 ? "-infinity" : "infinity") : "\(seconds)"
        return Diagnostic.plist(
            .unrepresentable,
            "the date \(what) seconds from 2001 is outside the years -9999 to 9999 that \(format) dates can carry; write binary instead",
            keyPath: keyPath)
    }

    /// The most bytes `writeISO8601(to:)` writes (a 7-digit year with its sign).
    static let maximumISO8601Length = 32

    /// Writes `iso8601` at `out`, which has room for `maximumISO8601Length` bytes; returns how many it wrote.
    func writeISO8601(to out: UnsafeMutablePointer<UInt8>) -> Int {
        let unix = (secondsSinceReferenceDate + PlistDate.unixEpochOffset).rounded(.down)
        guard unix.isFinite, abs(unix) < 1e14 else {
            let invalid: StaticString = "invalid-date"
            out.update(from: invalid.utf8Start, count: invalid.utf8CodeUnitCount)
            return invalid.utf8CodeUnitCount
        }
        let total = Int64(unix)
        var days = total / 86_400
        var secondsOfDay = total % 86_400
        if secondsOfDay < 0 { secondsOfDay += 86_400; days -= 1 }
        let (year, month, day) = PlistDate.civil(fromDays: days)
        var count = 0
        if year < 0 { out[0] = UInt8(ascii: "-"); count = 1 }
        count += PlistInteger.writeDigits(UInt64(abs(year)), minimumWidth: 4, to: out + count)
        func field(_ separator: UInt8, _ value: Int64) {
            out[count] = separator
            count += 1 + PlistInteger.writeDigits(UInt64(value), minimumWidth: 2, to: out + count + 1)
        }
        field(UInt8(ascii: "-"), month)
        field(UInt8(ascii: "-"), day)
        field(UInt8(ascii: "T"), secondsOfDay / 3600)
        field(UInt8(ascii: ":"), secondsOfDay / 60 % 60)
        field(UInt8(ascii: ":"), secondsOfDay % 60)
        out[count] = UInt8(ascii: "Z")
        return count + 1
    }

    public var description: String { iso8601 }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z` and the shorter forms Apple's reader accepts
    /// (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`, `YYYY-MM-DDTHH`, `YYYY-MM-DDTHH:MM`), all in UTC.
    public init?(iso8601 text: Substring) {
        guard
            let value = text.utf8.withContiguousStorageIfAvailable({ PlistDate(iso8601UTF8: $0) })
                ?? Array(text.utf8).withUnsafeBufferPointer({ PlistDate(iso8601UTF8: $0) })
        else { return nil }
        self = value
    }

    /// Parses the forms `init(iso8601:)` accepts from UTF-8 bytes.
    public init?(iso8601UTF8 bytes: UnsafeBufferPointer<UInt8>) {
        var index = 0
        func number(_ width: Int) -> Int64? {
            guard index + width <= bytes.count else { return nil }
            var value: Int64 = 0
            for offset in 0..<width {
                let byte = bytes[index + offset]
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            index += width
            return value
        }
        func expect(_ char: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: char) else { return false }
            index += 1
            return true
        }
        var negativeYear = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { negativeYear = true; index += 1 }
        guard var year = number(4) else { return nil }
        if negativeYear { year = -year }
        var month: Int64 = 1, day: Int64 = 1, hour: Int64 = 0, minute: Int64 = 0
        var second: Double = 0
        parse: do {
            if index == bytes.count || bytes[index] == UInt8(ascii: "Z") { break parse }
            guard expect("-"), let m = number(2) else { return nil }
            month = m
            if index == bytes.count || bytes[index] == UInt8(ascii: "Z") { break parse }
            guard expect("-"), let d = number(2) else { return nil }
            day = d
            if index == bytes.count || bytes[index] == UInt8(ascii: "Z") { break parse }
            guard expect("T"), let h = number(2) else { return nil }
            hour = h
            if index == bytes.count || bytes[index] == UInt8(ascii: "Z") { break parse }
            guard expect(":"), let mi = number(2) else { return nil }
            minute = mi
            if index == bytes.count || bytes[index] == UInt8(ascii: "Z") { break parse }
            guard expect(":"), let s = number(2) else { return nil }
            second = Double(s)
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                var scale = 0.1
                let start = index
                while index < bytes.count, bytes[index] >= 48 && bytes[index] <= 57 {
                    second += Double(bytes[index] - 48) * scale
                    scale /= 10
                    index += 1
                }
                if index == start { return nil }
            }
        }
        if index < bytes.count {
            guard expect("Z"), index == bytes.count else { return nil }
        }
        guard (1...12).contains(month), (1...PlistDate.daysIn(month: month, year: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), second < 61
        else { return nil }
        let days = PlistDate.days(fromCivil: year, month, day)
        let unix = Double(days * 86_400 + hour * 3600 + minute * 60) + second
        secondsSinceReferenceDate = unix - PlistDate.unixEpochOffset
    }

    public init?(iso8601 text: String) { self.init(iso8601: Substring(text)) }

    /// Parses a `<date>` of an XML plist: exactly `YYYY-MM-DDTHH:MM:SSZ` (a `-` before the year
    /// allowed), the only form Core Foundation's XML reader takes: no shorter forms, no fraction.
    public init?(xmlPlistUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        let fullLength = bytes.first == UInt8(ascii: "-") ? 21 : 20
        guard bytes.count == fullLength else { return nil }
        self.init(iso8601UTF8: bytes)
    }

    static func isLeap(_ year: Int64) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date (year, month, day) of a count of days since 1970-01-01.
    package static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
