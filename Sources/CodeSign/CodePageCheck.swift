import SystemSupport

/// Checks every code page of a slice against one CodeDirectory's code slots, on the pool's threads.
struct CodePageCheck: Sendable {
    /// How many bytes of pages one job hashes (and then lets go of, in one madvise call).
    static let bytesPerJob = 4 << 20

    let slice: MachOSlice
    /// The slice's bytes: ``MachOSlice/bytes``, or its range of the mapped executable.
    let source: SliceBytes
    let directory: CodeDirectory

    /// The problem with the directory's page layout itself (limit past the slice, slot count), if any;
    /// otherwise queues the page jobs, which add the index of each page that differs to `mismatches`.
    func submit(to pool: WorkerPool, mismatches: Locked<[Int]>) -> String? {
        let limit = directory.effectiveCodeLimit
        guard limit <= UInt64(slice.size), source.count == slice.size else {
            return "the CodeDirectory covers \(limit) bytes, more than the slice's \(source.count)"
        }
        let pageSize = directory.pageSize
        let expected = pageSize == 0 ? 1 : Int((limit + UInt64(pageSize) - 1) / UInt64(pageSize))
        guard directory.codeSlots.count == expected else {
            return "the CodeDirectory has \(directory.codeSlots.count) code slots for the \(expected) pages of its \(limit) bytes"
        }
        let source = self.source, slots = directory.codeSlots, type = directory.hashType
        let pagesPerJob = max(1, CodePageCheck.bytesPerJob / max(pageSize, 1))
        for first in stride(from: 0, to: expected, by: pagesPerJob) {
            let last = min(first + pagesPerJob, expected)
            pool.submit {
                // One digest context per job, restarted for each page; the pages are hashed in place.
                let stream = DigestStream(type)
                var bad: [Int] = []
                let end = Int(limit)
                let range = pageSize == 0 ? 0..<end : first * pageSize..<min(last * pageSize, end)
                source.withBytes { buffer in
                    for page in first..<last {
                        let start = pageSize == 0 ? 0 : page * pageSize
                        let stop = pageSize == 0 ? end : min(start + pageSize, end)
                        if !stream.matches(UnsafeRawBufferPointer(rebasing: buffer[start..<stop]), slots[page]) { bad.append(page) }
                    }
                }
                source.release(range)
                if !bad.isEmpty { mismatches.withLock { $0 += bad } }
            }
        }
        return nil
    }

    /// "code page 3 of 40 (bytes 0x3000..<0x4000) modified", or a short list for several pages.
    static func message(pages: [Int], of count: Int, pageSize: Int) -> String {
        let sorted = pages.sorted()
        if sorted.count == 1, pageSize > 0 {
            let start = sorted[0] * pageSize
            return
                "code page \(sorted[0]) of \(count) (bytes 0x\(String(start, radix: 16))..<0x\(String(start + pageSize, radix: 16))) modified"
        }
        let shown = sorted.prefix(5).map(String.init).joined(separator: ", ")
        return "code pages \(shown)\(sorted.count > 5 ? ", …" : "") (\(sorted.count) of \(count)) modified"
    }
}
