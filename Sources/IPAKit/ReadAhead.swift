import Foundation

/// Asks the kernel to start reading files shortly before they are needed, so that on a cold
/// disk the next files are already on their way while this one is copied (many small files
/// otherwise cost one disk round trip each).
///
/// It keeps up to `window` bytes, and at most `files` files, advised ahead of the one in use.
/// Advice is only a hint: a file that cannot be opened is skipped here and reported when read.
struct ReadAhead {
    private let paths: [String]
    private let sizes: [Int64]
    private let window: Int64
    private let files: Int
    private let advise: (String) -> Void
    private var next = 0
    private var advisedBytes: Int64 = 0

    init(paths: [String], sizes: [Int64], window: Int64 = 32 << 20, files: Int = 64,
         advise: @escaping (String) -> Void = ReadAhead.adviseWillNeed) {
        self.paths = paths
        self.sizes = sizes
        self.window = window
        self.files = files
        self.advise = advise
    }

    /// Tells the kernel the whole file will be read soon (`POSIX_FADV_WILLNEED`).
    static func adviseWillNeed(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED)
        close(fd)
    }

    /// Called before file `index` is read: advises the files after it that fit in the window.
    mutating func willRead(_ index: Int) {
        if next <= index {
            next = index
            advisedBytes = 0
        } else {
            advisedBytes -= sizes[index]
        }
        while next < paths.count && next - index < files && (advisedBytes < window || next == index) {
            advise(paths[next])
            if next != index { advisedBytes += sizes[next] }
            next += 1
        }
    }
}
