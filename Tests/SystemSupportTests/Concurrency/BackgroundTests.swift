import Foundation
import SystemSupport
import Testing

@Suite struct BackgroundTests {
    @Test func workRunsWithoutTheCallerWaiting() {
        let done = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Background.run {
            release.wait()
            done.signal()
        }
        // The call returned while the work still waits.
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
    }
}
