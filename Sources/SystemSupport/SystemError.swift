import Foundation

/// A system call that failed: what was being done, to which file, and errno's meaning.
public struct SystemError: DiagnosticError, Equatable {
    public var file: String?
    /// What could not be done, as a verb phrase: `cannot be read`, `cannot be locked`.
    public var action: String
    public var code: Int32

    public init(_ action: String, file: String? = nil, code: Int32 = errno) {
        self.action = action
        self.file = file
        self.code = code
    }

    public var location: String? { nil }
    public var problem: String { "\(action): \(Self.describe(code))" }

    /// errno's text: `No such file or directory`.
    public static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// Runs `call` until it returns something other than -1 with `EINTR`: a system call interrupted by a
/// signal before it did anything is simply made again. Returns the call's result (errno is left as
/// the call set it when that result is -1).
@inline(__always)
public func retryingInterrupted<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result != -1 || errno != EINTR { return result }
    }
}
