import CLinux
import Foundation
import SystemSupport

/// Writes the aligned bulk of a file around the page cache (`O_DIRECT`), while the disk takes them
/// at least as fast as memory is copied; the caller writes everything else as usual.
///
/// An ipa is written once, then read once to check it. Written through the page cache, each of its
/// pages is a page of memory the kernel hands out and the data is copied into: on the virtual
/// machines CI runs on, memory the guest has not touched lately costs a fault in the host on first
/// touch, and writing a 150 MB ipa took a third of a second of one core that way (against a hundredth
/// of a second written around the cache). A disk slower than that is found in the first writes, and
/// the rest go through the cache as before; so do writes a file system refuses (`EINVAL`).
/// Used by one thread at a time.
final class UncachedWrites {
    /// What an uncached write's address, offset and length must be multiples of.
    static let alignment = 4096
    /// After this many bytes, the writes stop unless they went at ``minimumRate`` or faster.
    static let trialBytes = 8 << 20
    /// Bytes per second: about the rate memory is copied into fresh pages (an SSD, a host's cache).
    static let defaultMinimumRate: Double = 1_000_000_000

    /// `O_DIRECT`, which Swift's Glibc module leaves out (glibc defines it only with `_GNU_SOURCE`;
    /// the shim gives its value for the architecture).
    static let directFlag = Int32(ADHOCBUILD_O_DIRECT)

    private var descriptor: Int32
    private let minimumRate: Double
    private var written = 0
    private var seconds = 0.0

    /// Opens `path` (a file being written) a second time for uncached writes; off when the system
    /// or the file system cannot. They stop after ``trialBytes`` written slower than `minimumRate`.
    init(path: String, minimumRate: Double = UncachedWrites.defaultMinimumRate) {
        descriptor = open(path, O_WRONLY | O_CLOEXEC | UncachedWrites.directFlag)
        self.minimumRate = minimumRate
    }

    deinit { stop() }

    /// Whether writes still go around the cache.
    var isOn: Bool { descriptor >= 0 }

    /// Writes `bytes` at `offset` around the cache when they and the offset are aligned and the
    /// writes are still on; returns how many of the first bytes were written (0 when none: the
    /// caller writes what is left through the cache).
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Int {
        let alignment = UncachedWrites.alignment
        guard descriptor >= 0, let base = bytes.baseAddress, bytes.count > 0, bytes.count % alignment == 0,
            offset % Int64(alignment) == 0, Int(bitPattern: base) % alignment == 0
        else { return 0 }
        let start = DispatchTime.now().uptimeNanoseconds
        let result = retryingInterrupted { pwrite(descriptor, base, bytes.count, off_t(offset)) }
        guard result > 0 else {
            stop()  // refused (EINVAL where the file system takes no uncached writes): cached from here on
            return 0
        }
        written += result
        seconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if written >= UncachedWrites.trialBytes && Double(written) < minimumRate * seconds { stop() }
        return result
    }

    /// Writes go through the cache from now on.
    func stop() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }
}
