import Dispatch

/// Loops whose iterations run at once on every core.
public enum Parallel {
    /// Runs `body` for each of `0..<iterations` on the cores at once, and returns when every
    /// iteration has (so what they wrote may be read then); throws the first failure once all have
    /// ended. A failed iteration does not stop the others.
    public static func forEach(_ iterations: Int, _ body: @Sendable (Int) throws -> Void) throws {
        let failure = Locked<(any Error)?>(nil)
        DispatchQueue.concurrentPerform(iterations: iterations) { index in
            do { try body(index) } catch { failure.withLock { if $0 == nil { $0 = error } } }
        }
        if let error = failure.value { throw error }
    }
}
