import CLibZip
import Foundation

/// A libzip source that hands over data already deflated, with its sizes and CRC, so libzip
/// copies it into the archive without compressing it again.
final class PreparedSource {
    let entry: PreparedEntry
    let spool: any PreparedBytes
    private var segment = 0
    private var offsetInSegment = 0
    private var error = zip_error_t()

    init(entry: PreparedEntry, spool: any PreparedBytes) {
        self.entry = entry
        self.spool = spool
        zip_error_init(&error)
    }

    deinit { zip_error_fini(&error) }

    private func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Int64 {
        var copied = 0
        while copied < count && segment < entry.segments.count {
            let current = entry.segments[segment]
            if current.length == 0 {  // an empty file's single segment
                segment += 1
                continue
            }
            let wanted = min(count - copied, current.length - offsetInSegment)
            let got = spool.read(at: current.offset + Int64(offsetInSegment), into: buffer + copied, count: wanted)
            guard got > 0 else {
                zip_error_set(&error, ZIP_ER_READ, errno)
                return -1
            }
            copied += got
            offsetInSegment += got
            if offsetInSegment == current.length {
                segment += 1
                offsetInSegment = 0
            }
        }
        return Int64(copied)
    }

    private func handle(_ data: UnsafeMutableRawPointer?, _ length: UInt64, _ command: zip_source_cmd_t) -> Int64 {
        switch command {
        case ZIP_SOURCE_OPEN:
            segment = 0
            offsetInSegment = 0
            return 0
        case ZIP_SOURCE_READ:
            return read(into: data!, count: Int(length))
        case ZIP_SOURCE_CLOSE:
            return 0
        case ZIP_SOURCE_STAT:
            let stat = data!.assumingMemoryBound(to: zip_stat_t.self)
            zip_stat_init(stat)
            stat.pointee.valid = UInt64(ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD | ZIP_STAT_CRC)
            stat.pointee.size = UInt64(entry.uncompressedSize)
            stat.pointee.comp_size = UInt64(entry.compressedSize)
            stat.pointee.comp_method = entry.isDeflated ? UInt16(ZIP_CM_DEFLATE) : UInt16(ZIP_CM_STORE)
            stat.pointee.crc = entry.crc
            return Int64(MemoryLayout<zip_stat_t>.size)
        case ZIP_SOURCE_ERROR:
            return zip_error_to_data(&error, data!, length)
        case ZIP_SOURCE_SUPPORTS:
            return adhocbuild_zip_source_supports_readable()
        default:
            zip_error_set(&error, ZIP_ER_OPNOTSUPP, 0)
            return -1
        }
    }

    static let callback: zip_source_callback = { userdata, data, length, command in
        let unmanaged = Unmanaged<PreparedSource>.fromOpaque(userdata!)
        if command == ZIP_SOURCE_FREE {
            unmanaged.release()
            return 0
        }
        return unmanaged.takeUnretainedValue().handle(data, length, command)
    }
}
