import Foundation
import PlistKit
import SystemSupport

/// An app's `_CodeSignature/CodeResources` parsed for the verifier (``CodeResources/init(verifying:limits:)``)
/// on another thread from the moment its bytes were read, so the parse runs while other work does
/// (the folder is walked, the executable inflated). ``BundleFileReader/codeResources(_:)`` takes it
/// for the same bytes instead of parsing again.
struct PreparsedCodeResources: Sendable {
    /// The bytes parsed.
    let data: Data
    /// The seal, or why the bytes are not one (the error parsing them directly throws).
    let value: BackgroundResult<CodeResources, any Error>

    /// Starts parsing `data` with `limits`.
    init(_ data: Data, limits: PlistLimits) {
        self.data = data
        // A thread of its own: the parse takes milliseconds, and on the pool it held a thread the
        // hashing jobs queued meanwhile were waiting for.
        value = BackgroundResult(thread: "adhocbuild.seal-parse") { try CodeResources(verifying: data, limits: limits) }
    }
}

/// A value let go of later, on another thread.
// @unchecked Sendable: set once, then cleared by the one thread it is handed to.
final class Leftover<Value>: @unchecked Sendable {
    var value: Value?
    init(_ value: Value) { self.value = value }
}
