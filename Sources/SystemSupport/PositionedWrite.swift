import Foundation

/// Writes all of `bytes` to `fd` at `offset`, retrying short writes and interruptions; returns
/// 0, or the `errno` of the failure (`ENOSPC` when the system writes nothing and reports no error).
public func positionedWriteAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Int32 {
    var done = 0
    while done < bytes.count {
        let result = retryingInterrupted { pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done)) }
        guard result > 0 else { return result < 0 ? errno : ENOSPC }
        done += result
    }
    return 0
}
