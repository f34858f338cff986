import Foundation
import TestSupport
import Testing

@testable import SystemSupport

/// The processor count the worker pools are sized by: the CPUs the process may run on, fewer when
/// a control group's CPU quota is lower.
@Suite struct ProcessorsTests {
    @Test func theCPUsAllowedAreTheOnesTheKernelListsForTheProcess() throws {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") })
        // "0-3,8,10-11": ranges and single CPUs.
        let listed = line.split(separator: ":")[1].split(separator: ",").map { range in
            let ends = range.trimmingCharacters(in: .whitespaces).split(separator: "-").compactMap { Int($0) }
            return ends.count == 2 ? ends[1] - ends[0] + 1 : 1
        }
        #expect(Processors.allowedCPUs() == listed.reduce(0, +))
    }

    @Test func theLowerOfTheCPUsAllowedAndTheQuotaIsUsed() {
        #expect(Processors.count(allowed: 8, quota: 2) == 2)
        #expect(Processors.count(allowed: 2, quota: 8) == 2)
        #expect(Processors.count(allowed: 4, quota: nil) == 4)
        #expect(Processors.count(allowed: nil, quota: 1) == 1)
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

    /// A file system holding `files` (path → text) under a temporary root, for `cgroupQuota(root:)`.
    private func quota(_ files: [String: String]) throws -> Int? {
        try withTemporaryFolder { folder in
            for (path, text) in files {
                let file = folder.url.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: file)
            }
            return Processors.cgroupQuota(root: folder.url.path + "/")
        }
    }

    @Test func aVersion2QuotaOfAGroupAboveTheProcessCounts() throws {
        #expect(
            try quota([
                "proc/self/cgroup": "0::/a/b\n", "sys/fs/cgroup/a/b/cpu.max": "max 100000\n", "sys/fs/cgroup/a/cpu.max": "150000 100000\n"
            ]) == 2)
        #expect(
            try quota([
                "proc/self/cgroup": "0::/a/b\n", "sys/fs/cgroup/a/b/cpu.max": "50000 100000\n", "sys/fs/cgroup/a/cpu.max": "300000 100000\n"
            ]) == 1)
    }

    @Test func aGroupWhoseFolderIsNotThereIsLookedForAtTheTop() throws {
        // A container without its own cgroup namespace: the host's path, its own group mounted at the top.
        #expect(try quota(["proc/self/cgroup": "0::/docker/abc\n", "sys/fs/cgroup/cpu.max": "200000 100000\n"]) == 2)
    }

    @Test func aVersion1QuotaIsReadFromTheCPUControllersHierarchy() throws {
        #expect(
            try quota([
                "proc/self/cgroup": "4:cpu,cpuacct:/x\n3:cpuset:/\n",
                "sys/fs/cgroup/cpu,cpuacct/x/cpu.cfs_quota_us": "-1\n", "sys/fs/cgroup/cpu,cpuacct/x/cpu.cfs_period_us": "100000\n",
                "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "250000\n", "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n"
            ]) == 3)
    }

    @Test func noQuotaAnywhereOrNothingReadableIsNone() throws {
        #expect(try quota(["proc/self/cgroup": "0::/a\n", "sys/fs/cgroup/a/cpu.max": "max 100000\n"]) == nil)
        #expect(try quota(["proc/self/cgroup": "0::/a\n"]) == nil)
        #expect(try quota([:]) == nil)
    }
}
