import SystemSupport

/// Checks every code page of a slice against its CodeDirectories' code slots, on the pool's threads.
///
/// Directories over the same pages (a SHA-1 and a SHA-256 one with the same page size and code
/// limit, as Xcode writes them) are checked in one pass: each page is hashed by every type while it
/// is in the cache, and the mapped range is let go once.
struct CodePageCheck: Sendable {
    /// How many bytes of pages one job hashes (and then lets go of, in one madvise call).
    static let bytesPerJob = 4 << 20

    let slice: MachOSlice
    /// The slice's bytes: ``MachOSlice/bytes``, or its range of the mapped executable.
    let source: SliceBytes
    let directories: [CodeDirectory]

    /// For each directory, in order: the problem with its page layout (limit past the slice, slot
    /// count), or nil when its pages were queued; each page that differs is added to the directory's
    /// `mismatches` by the jobs.
    func submit(to pool: WorkerPool, mismatches: [Locked<[Int]>]) -> [String?] {
        precondition(mismatches.count == directories.count, "one mismatch list per CodeDirectory")
        var problems: [String?] = []
        var passes: [(pageSize: Int, limit: UInt64, members: [Int])] = []
        for (index, directory) in directories.enumerated() {
            if let problem = layoutProblem(directory) {
                problems.append(problem)
                continue
            }
            problems.append(nil)
            let limit = directory.effectiveCodeLimit
            if let pass = passes.firstIndex(where: { $0.pageSize == directory.pageSize && $0.limit == limit }) {
                passes[pass].members.append(index)
            } else {
                passes.append((directory.pageSize, limit, [index]))
            }
        }
        for pass in passes {
            submitPass(
                pageSize: pass.pageSize, limit: Int(pass.limit), directories: pass.members.map { directories[$0] },
                mismatches: pass.members.map { mismatches[$0] }, to: pool)
        }
        return problems
    }

    /// Why `directory`'s code slots cannot describe this slice's pages, if they cannot.
    private func layoutProblem(_ directory: CodeDirectory) -> String? {
        let limit = directory.effectiveCodeLimit
        guard limit <= UInt64(slice.size), source.count == slice.size else {
            return "the CodeDirectory covers \(limit) bytes, more than the slice's \(source.count)"
        }
        let expected = CodePageCheck.pageCount(limit: Int(limit), pageSize: directory.pageSize)
        guard directory.codeSlots.count == expected else {
            return "the CodeDirectory has \(directory.codeSlots.count) code slots for the \(expected) pages of its \(limit) bytes"
        }
        return nil
    }

    /// How many code slots cover `limit` bytes in pages of `pageSize` (0: one page, the whole code).
    private static func pageCount(limit: Int, pageSize: Int) -> Int {
        pageSize == 0 ? 1 : (limit + pageSize - 1) / pageSize
    }

    /// Queues the jobs that hash the pages below `limit` once for every directory of the pass.
    private func submitPass(
        pageSize: Int, limit end: Int, directories: [CodeDirectory], mismatches: [Locked<[Int]>], to pool: WorkerPool
    ) {
        let source = self.source
        let types = directories.map(\.hashType), slots = directories.map(\.codeSlots)
        let count = CodePageCheck.pageCount(limit: end, pageSize: pageSize)
        let pagesPerJob = max(1, CodePageCheck.bytesPerJob / max(pageSize, 1))
        for first in stride(from: 0, to: count, by: pagesPerJob) {
            let last = min(first + pagesPerJob, count)
            pool.submit {
                // One digest context per type and job, restarted for each page; the pages are hashed in place.
                let streams = types.map { DigestStream($0) }
                var bad = [[Int]](repeating: [], count: streams.count)
                let range = pageSize == 0 ? 0..<end : first * pageSize..<min(last * pageSize, end)
                source.withBytes { buffer in
                    for page in first..<last {
                        let start = pageSize == 0 ? 0 : page * pageSize
                        let stop = pageSize == 0 ? end : min(start + pageSize, end)
                        let bytes = UnsafeRawBufferPointer(rebasing: buffer[start..<stop])
                        for index in streams.indices where !streams[index].matches(bytes, slots[index][page]) {
                            bad[index].append(page)
                        }
                    }
                }
                source.release(range)
                for index in bad.indices where !bad[index].isEmpty {
                    mismatches[index].withLock { $0 += bad[index] }
                }
            }
        }
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
