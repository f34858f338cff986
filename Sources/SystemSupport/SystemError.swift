import Foundation

/// errno's words for a failed system call.
public enum SystemError {
    /// `strerror`'s text for `code`: `No space left on device`.
    public static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// Calls `call` again while it fails with `EINTR` (a signal arrived before it did anything); returns the
/// first other result.
@inline(__always)
public func retryingInterrupted<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result != -1 || errno != EINTR { return result }
    }
}
