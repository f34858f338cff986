import SystemSupport

/// Checks every code page of a slice against the code slots of its strongest CodeDirectory, on the
/// pool's threads, and the page layout of every CodeDirectory.
///
/// As Apple's `codesign --verify` and the kernel do, the pages are hashed in the strongest hash type
/// the signature has (SHA-256 where Xcode writes a SHA-1 and a SHA-256 one): that is the directory
/// they check code by. The others are bound to the signature by their hashes (the CMS's cdhash
/// attributes), so a changed page shows in the strongest; their slots are not hashed again.
struct CodePageVerifier: Sendable {
    /// How many bytes of pages one job hashes (and then lets go of, in one madvise call): jobs of
    /// 1 MiB end within a millisecond of each other, where the last of 4 MiB kept one core hashing
    /// for up to 3 ms while the other had nothing left (the pages are usually the last work).
    static let bytesPerJob = 1 << 20

    let slice: MachOSlice
    /// The slice's bytes: ``MachOSlice/bytes``, or its range of the mapped executable.
    let source: SliceBytes
    let directories: [CodeDirectory]

    /// For each directory, in order: the problem with its page layout (limit past the slice, slot
    /// count), or nil; the strongest one's pages are queued when its layout is sound, and each page
    /// that differs is added to its `mismatches` by the jobs.
    func submit(to pool: WorkerPool, mismatches: [Locked<[Int]>]) -> [String?] {
        precondition(mismatches.count == directories.count, "one mismatch list per CodeDirectory")
        let problems = directories.map(layoutProblem)
        let strongest = CodePageVerifier.strongest(directories)
        if let strongest, problems[strongest] == nil {
            let directory = directories[strongest]
            submitPass(
                pageSize: directory.pageSize, limit: Int(directory.effectiveCodeLimit), directories: [directory],
                mismatches: [mismatches[strongest]], to: pool)
        }
        return problems
    }

    /// Which of `directories` the code is checked by: the first of the strongest hash type.
    static func strongest(_ directories: [CodeDirectory]) -> Int? {
        directories.indices.max { directories[$0].hashType.strength < directories[$1].hashType.strength }
    }

    /// Why `directory`'s code slots cannot describe this slice's pages, if they cannot.
    private func layoutProblem(_ directory: CodeDirectory) -> String? {
        let limit = directory.effectiveCodeLimit
        guard limit <= UInt64(slice.size), source.count == slice.size else {
            return "the CodeDirectory covers \(limit) bytes, more than the slice's \(source.count)"
        }
        let expected = CodePageVerifier.pageCount(limit: Int(limit), pageSize: directory.pageSize)
        guard directory.codeSlotCount == expected else {
            return "the CodeDirectory has \(directory.codeSlotCount) code slots for the \(expected) pages of its \(limit) bytes"
        }
        return nil
    }

    /// How many code slots cover `limit` bytes in pages of `pageSize` (0: one page, the whole code).
    private static func pageCount(limit: Int, pageSize: Int) -> Int {
        pageSize == 0 ? 1 : (limit + pageSize - 1) / pageSize
    }

    /// Queues the jobs that hash the pages below `limit` once for every one of `directories`.
    private func submitPass(
        pageSize: Int, limit end: Int, directories: [CodeDirectory], mismatches: [Locked<[Int]>], to pool: WorkerPool
    ) {
        let source = self.source
        let types = directories.map(\.hashType)
        // Each directory's slots as one buffer, and the size of one (a slot of another size than the
        // hash type's never matches).
        let slots = directories.map { (bytes: $0.codeSlotBytes, size: $0.codeSlotBytes.count / max(1, $0.codeSlotCount)) }
        let count = CodePageVerifier.pageCount(limit: end, pageSize: pageSize)
        let pagesPerJob = max(1, CodePageVerifier.bytesPerJob / max(pageSize, 1))
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
                        for index in streams.indices {
                            let size = slots[index].size
                            let matches = slots[index].bytes.withUnsafeBytes {
                                streams[index].matches(bytes, UnsafeRawBufferPointer(rebasing: $0[page * size..<(page + 1) * size]))
                            }
                            if !matches { bad[index].append(page) }
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
