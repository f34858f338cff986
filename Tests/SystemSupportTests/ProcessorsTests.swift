import Foundation
import Testing

@testable import SystemSupport

/// The processor count the worker pools are sized by: Foundation's `activeProcessorCount`, read
/// without Foundation.
@Suite struct ProcessorsTests {
    @Test func theCountIsFoundationsOnThisMachine() {
        #expect(Processors.usable == ProcessInfo.processInfo.activeProcessorCount)
    }

    @Test func theCountIsTheCPUsThisThreadMayRunOnWhenNoQuotaIsLower() throws {
        let allowed = try #require(Processors.allowedCPUs())
        #expect(allowed >= 1)
        #expect(Processors.usable == min(allowed, Processors.cgroupQuota() ?? allowed))
    }

    @Test func aQuotaIsRoundedUpToWholeCPUs() {
        #expect(Processors.quota(cpuMax: "max 100000") == nil)
        #expect(Processors.quota(cpuMax: "150000 100000") == 2)
        #expect(Processors.quota(cpuMax: "50000 100000") == 1)
        #expect(Processors.quota(cpuMax: "200000 100000") == 2)
        #expect(Processors.quota(cpuMax: "200000") == nil)
        #expect(Processors.quota(quotaMicroseconds: "-1", periodMicroseconds: "100000") == nil)
        #expect(Processors.quota(quotaMicroseconds: "300001", periodMicroseconds: "100000") == 4)
        #expect(Processors.quota(quotaMicroseconds: "100000", periodMicroseconds: "0") == nil)
    }

    @Test func groupsAreReadFromBothVersionsOfTheListing() {
        let groups = Processors.cgroups("12:cpu,cpuacct:/docker/abc\n3:cpuset:/\n0::/user.slice/session-1.scope\nbad line\n")
        #expect(groups.map(\.controllers) == [["cpu", "cpuacct"], ["cpuset"], []])
        #expect(groups.map(\.path) == ["/docker/abc", "", "/user.slice/session-1.scope"])
    }
}
