import SystemSupport
import Testing

struct TimeSpanTests {
    @Test(arguments: [
        ("30d", 2_592_000), ("12h", 43_200), ("90m", 5400), ("45s", 45), ("3600", 3600), ("1d12h", 129_600), ("1w", 604_800),
        ("0s", 0)
    ])
    func readsNumbersWithUnits(text: String, seconds: Int) {
        #expect(TimeSpan(text)?.seconds == seconds)
    }

    @Test(arguments: ["", "d", "-1d", "1.5d", "7 d", "7D", "1y", "1d30", "99999999999999999999s", "9223372036854775807d", "٣d"])
    func refusesWhatIsNotATimeSpan(text: String) {
        #expect(TimeSpan(text) == nil)
    }

    @Test func printsTheLargestWholeUnit() {
        #expect(TimeSpan(seconds: 604_800).description == "7d")
        #expect(TimeSpan(seconds: 129_600).description == "36h")
        #expect(TimeSpan(seconds: 5400).description == "90m")
        #expect(TimeSpan(seconds: 61).description == "61s")
    }
}
