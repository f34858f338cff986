import CLinux
import Foundation

/// How many processors this process's work can use at once: the CPUs it may run on
/// (sched_getaffinity(2)), fewer when its control group's CPU quota is less (rounded up, as
/// Foundation's `ProcessInfo.activeProcessorCount` does). Read with plain system calls: Foundation's
/// reads its control-group files through `URL` and `Data`, whose first use costs a search of every
/// protocol conformance in the binary (about 60 µs of each command's start).
public enum Processors {
    /// At least 1; read once.
    public static let usable: Int = {
        let allowed = allowedCPUs() ?? max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        guard let quota = cgroupQuota() else { return allowed }
        return max(1, min(allowed, quota))
    }()

    /// The number of CPUs this thread may run on, or nil when the system does not say.
    static func allowedCPUs() -> Int? {
        var mask = [UInt](repeating: 0, count: 16)
        guard adhocbuild_allowed_cpus(&mask, mask.count) > 0 else { return nil }
        let count = mask.reduce(0) { $0 + $1.nonzeroBitCount }
        return count > 0 ? count : nil
    }

    /// The CPU quota of this process's control group in whole CPUs (rounded up), or nil when it
    /// has none or it cannot be read.
    static func cgroupQuota() -> Int? {
        guard let membership = try? FileIO.read("/proc/self/cgroup") else { return nil }
        for group in cgroups(String(decoding: membership, as: UTF8.self)) {
            if group.controllers.isEmpty {
                // Version 2: one hierarchy, its `cpu.max` in the group's folder.
                for folder in ["/sys/fs/cgroup" + group.path, "/sys/fs/cgroup"] {
                    if let text = readSmall(folder + "/cpu.max") { return quota(cpuMax: text) }
                }
            } else if group.controllers.contains("cpu") {
                // Version 1: the cpu controller's hierarchy, mounted under its controllers' names.
                let mounts = ["/sys/fs/cgroup/" + group.controllers.joined(separator: ","), "/sys/fs/cgroup/cpu"]
                for folder in mounts.flatMap({ [$0 + group.path, $0] }) {
                    if let quota = readSmall(folder + "/cpu.cfs_quota_us"), let period = readSmall(folder + "/cpu.cfs_period_us") {
                        return self.quota(quotaMicroseconds: quota, periodMicroseconds: period)
                    }
                }
            }
        }
        return nil
    }

    /// The groups of a `/proc/self/cgroup` listing: each line's controllers (none for version 2)
    /// and path.
    static func cgroups(_ listing: String) -> [(controllers: [String], path: String)] {
        listing.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, fields[2].hasPrefix("/") else { return nil }
            let path = fields[2] == "/" ? "" : String(fields[2])
            return (fields[1].split(separator: ",").map(String.init), path)
        }
    }

    /// Whole CPUs of a version 2 `cpu.max` (`max 100000` or `<quota> <period>`), nil for none.
    static func quota(cpuMax: String) -> Int? {
        let fields = cpuMax.split(separator: " ")
        guard fields.count == 2 else { return nil }
        return quota(quotaMicroseconds: String(fields[0]), periodMicroseconds: String(fields[1]))
    }

    /// Whole CPUs of a quota and period in microseconds (version 1 writes -1 for none), rounded up.
    static func quota(quotaMicroseconds: String, periodMicroseconds: String) -> Int? {
        guard let quota = Int(quotaMicroseconds), quota > 0, let period = Int(periodMicroseconds), period > 0 else { return nil }
        return (quota + period - 1) / period
    }

    /// A small control file's text without its line end, nil when it cannot be read.
    private static func readSmall(_ path: String) -> String? {
        guard let data = try? FileIO.read(path, limit: 4096) else { return nil }
        return String(decoding: data.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}
