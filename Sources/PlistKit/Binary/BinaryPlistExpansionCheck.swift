import SystemSupport

/// How many values a binary plist expands to when its shared objects are written out, counted before
/// anything is written: an object referenced from many places is written each time, so 154 bytes of
/// nested arrays that share their children can stand for 10^9 values. Each object's count is
/// computed once, so the check is linear in the file's objects and references.
///
/// Every reader of binary plists bounds the same count (``PlistLimits/maxValues``): building the value
/// (`print`, `set`) counted it as it decoded, and now converting, which streams, counts it first, with
/// the same error at the same place.
struct BinaryPlistExpansionCheck {
    let table: BinaryPlistObjectTable
    let limits: PlistLimits
    private var counts: [Int]
    private var inProgress: [Bool]

    init(table: BinaryPlistObjectTable, limits: PlistLimits) {
        self.table = table
        self.limits = limits
        counts = Array(repeating: 0, count: table.objectCount)
        inProgress = Array(repeating: false, count: table.objectCount)
    }

    /// Throws the `limitExceeded` error once the top object expands to more than the limit. Objects that
    /// do not decode, nest too deep or contain themselves count as one value here: the walk that
    /// follows reports them in document order.
    mutating func check() throws {
        _ = try count(table.topObject, depth: 0)
    }

    private mutating func count(_ object: Int, depth: Int) throws -> Int {
        guard object >= 0, object < counts.count else { return 1 }
        if counts[object] > 0 { return counts[object] }
        guard !inProgress[object], let (decoded, start, _) = try? table.object(object) else { return 1 }
        var expanded = 1
        switch decoded {
        case .array(let refs, let count), .dictionary(let refs, let count):
            guard depth < limits.maxDepth else { return 1 }
            inProgress[object] = true
            defer { inProgress[object] = false }
            let references = if case .dictionary = decoded { count * 2 } else { count }
            for index in 0..<references {
                guard let reference = try? table.reference(at: refs + index * table.refSize, in: object) else { break }
                expanded += try self.count(reference, depth: depth + 1)
                if expanded > limits.maxValues {
                    throw Diagnostic.plist(.limitExceeded, "the plist expands to more than \(limits.maxValues) values", at: .byte(start))
                }
            }
        default:
            break
        }
        counts[object] = expanded
        return expanded
    }
}
