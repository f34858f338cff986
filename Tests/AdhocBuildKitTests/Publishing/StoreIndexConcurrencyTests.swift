import Foundation
import Manifest
import ObjectStorage
import SystemSupport
import TestSupport
import Testing

@testable import AdhocBuildKit

/// Issue 34: CI agents that share nothing but the bucket publish at the same moment, and the index
/// and `latest` lose nothing (a real SeaweedFS, one thread and one client per agent).
@Suite(SeaweedFS.enabled)
struct StoreIndexConcurrencyTests {
    static let agents = 8

    @Test(arguments: 1...3)
    func eightAgentsPublishingAtOnceAllAppearInTheIndexAndLatestIsTheNewest(round: Int) throws {
        let bucket = try StoreTestBucket()
        let updates = Locked<[Int: Result<StoreIndexUpdate, any Error>]>([:])
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for agent in 0..<Self.agents {
            done.enter()
            let thread = Thread {
                defer { done.leave() }
                go.wait()
                let result = Result {
                    // Agent i starts i × 50 ms after the first and takes (7 − i) × 80 ms more between
                    // reading the store and writing the index (a slower network, a bigger store): they
                    // write in the reverse order they read, the worst case for a lost update.
                    Thread.sleep(forTimeInterval: 0.05 * Double(agent))
                    let store = try bucket.store()
                    // Even agents publish to Staging, odd ones to Production; a higher agent's build is newer.
                    let environment = agent % 2 == 0 ? "Staging" : "Production"
                    try bucket.putRelease(
                        StoreTestBucket.info(environment, "1.0", "\(100 + agent)", date: "2026-06-01T10:00:0\(agent)Z"),
                        client: store.client)
                    return try store.updateIndex(
                        title: "Builds", attempts: ReleaseStore.indexAttempts,
                        beforeWriting: { attempt in
                            if attempt == 1 { Thread.sleep(forTimeInterval: 0.08 * Double(Self.agents - 1 - agent)) }
                        })
                }
                updates.withLock { $0[agent] = result }
            }
            thread.start()
        }
        for _ in 0..<Self.agents { go.signal() }
        done.wait()

        let results = try updates.value.sorted { $0.key < $1.key }.map { try $0.value.get() }
        #expect(results.count == Self.agents)
        let index = try bucket.text("index.html")
        #expect(index.contains("\(Self.agents) builds in 2 environments"))
        for agent in 0..<Self.agents {
            #expect(index.contains("ShoutOut 1.0 (\(100 + agent))"), "agent \(agent)'s release is missing from the index")
        }
        #expect(try bucket.get("Staging/latest/build.json") == bucket.get("Staging/1.0-106/build.json"))
        #expect(try bucket.get("Production/latest/build.json") == bucket.get("Production/1.0-107/build.json"))
        #expect(try bucket.text("Staging/latest/index.html") == StoreTestBucket.page("Staging/1.0-106"))
        #expect(try bucket.text("Production/latest/index.html") == StoreTestBucket.page("Production/1.0-107"))
        // They did collide: some agent's write found the index or latest changed and read the store again.
        #expect(results.contains { $0.attempts > 1 })
    }
}
