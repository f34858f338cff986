import Foundation

/// Opens files shortly before they are read and asks the kernel to start reading them, so that
/// on a cold disk the next files are already on their way while this one is copied (many
/// small files otherwise cost one disk round trip each). The reader then takes each file's
/// descriptor from here instead of opening it again.
///
/// It keeps up to `window` bytes, and at most `files` files, open and advised ahead of the one
/// in use. Advice is only a hint: a file that cannot be opened here is opened again by the
/// reader, which reports why.
final class ReadAhead {
    private let paths: [String]
    private let sizes: [Int64]
    private let window: Int64
    private let files: Int
    private let openAhead: (String) -> Int32
    /// Descriptors opened ahead and not yet taken, by file index.
    private var opened: [Int: Int32] = [:]
    private var next = 0
    private var advisedBytes: Int64 = 0

    /// `openAhead` opens a file and advises it, returning its descriptor or -1 (a closure only
    /// so tests can watch the order).
    init(paths: [String], sizes: [Int64], window: Int64 = 32 << 20, files: Int = 64,
         openAhead: @escaping (String) -> Int32 = ReadAhead.openWillNeed) {
        self.paths = paths
        self.sizes = sizes
        self.window = window
        self.files = files
        self.openAhead = openAhead
    }

    deinit { opened.values.forEach { close($0) } }

    /// Opens `path` and tells the kernel the whole file will be read soon (`POSIX_FADV_WILLNEED`).
    static func openWillNeed(_ path: String) -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd >= 0 { _ = posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED) }
        return fd
    }

    /// Called before file `index` is read: opens and advises the files after it that fit in the
    /// window, and hands over file `index`'s descriptor (the caller closes it), or -1 when it
    /// could not be opened.
    func descriptor(for index: Int) -> Int32 {
        if next <= index {
            next = index
            advisedBytes = 0
        } else {
            advisedBytes -= sizes[index]
        }
        while next < paths.count && next - index < files && (advisedBytes < window || next == index) {
            let fd = openAhead(paths[next])
            if fd >= 0 { opened[next] = fd }
            if next != index { advisedBytes += sizes[next] }
            next += 1
        }
        return opened.removeValue(forKey: index) ?? -1
    }
}
