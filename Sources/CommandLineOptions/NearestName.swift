/// "Did you mean": the nearest name by edit distance, ignoring case, when it is close enough to
/// be a likely typo.
enum NearestName {
    /// `tolerance` is the distance allowed for short words; long words allow a third of their length.
    static func closest(to word: String, in candidates: [String], tolerance: Int = 2) -> String? {
        let scored = candidates.map { ($0, distance(word, $0)) }.min { $0.1 < $1.1 }
        guard let (best, score) = scored, score <= max(tolerance, word.count / 3) else { return nil }
        return best
    }

    /// Levenshtein distance between `a` and `b`, ignoring case.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        var previous = Array(0...b.count)
        for (i, charA) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, charB) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (charA == charB ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
