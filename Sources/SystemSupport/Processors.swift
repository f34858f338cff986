import CLinux
import Foundation

/// How many processors this process's work can use at once, which sizes the worker pools: the CPUs
/// the process may run on (its affinity, as `taskset` and container CPU sets narrow it), fewer when
/// a CPU quota of its control group or of a group above it is lower (rounded up to whole CPUs;
/// cgroup version 1 and 2). This differs from Foundation's `ProcessInfo.activeProcessorCount` on
/// Linux, which reads version 1 files at fixed paths only and no affinity; it is read with plain
/// system calls, where Foundation's reads its files through `URL` and `Data`, whose first use costs
/// a search of every protocol conformance in the binary (about 60 µs of each command's start).
public enum Processors {
    /// At least 1; read once.
    public static let usable: Int = count(allowed: allowedCPUs(), quota: cgroupQuota())

    /// The processors to use given the CPUs allowed (nil when the system does not say: the CPUs
    /// online) and the quota in whole CPUs (nil for none).
    static func count(allowed: Int?, quota: Int?) -> Int {
        let allowed = allowed ?? max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        return max(1, min(allowed, quota ?? allowed))
    }

    /// The number of CPUs the process may run on, or nil when the system does not say.
    static func allowedCPUs() -> Int? {
        var mask = [UInt](repeating: 0, count: PosixThread.Placement.words)
        guard adhocbuild_process_allowed_cpus(&mask, mask.count) > 0 else { return nil }
        let count = mask.reduce(0) { $0 + $1.nonzeroBitCount }
        return count > 0 ? count : nil
    }

    /// The lowest CPU quota, in whole CPUs rounded up, of this process's control group and the
    /// groups above it, as `/proc/self/cgroup` names them under `root`'s `sys/fs/cgroup`; nil when
    /// none has one or none can be read. A group whose folder is not there (a container that sees
    /// only its own part of the hierarchy, mounted at the top) is looked for higher up.
    static func cgroupQuota(root: String = "/") -> Int? {
        guard let membership = readSmall(root + "proc/self/cgroup", wholeFile: true) else { return nil }
        let top = root + "sys/fs/cgroup"
        var lowest: Int?
        for group in cgroups(membership) {
            let quotas: [Int?]
            if group.controllers.isEmpty {
                // Version 2: one hierarchy, `cpu.max` in each group's folder.
                quotas = folders(of: group.path, under: [top]).map { readSmall($0 + "/cpu.max").flatMap(quota(cpuMax:)) }
            } else if group.controllers.contains("cpu") {
                // Version 1: the cpu controller's hierarchy, mounted under its controllers' names.
                let named = top + "/" + group.controllers.joined(separator: ",")
                let mounts = named == top + "/cpu" ? [named] : [named, top + "/cpu"]
                quotas = folders(of: group.path, under: mounts).map { folder in
                    guard let quota = readSmall(folder + "/cpu.cfs_quota_us"), let period = readSmall(folder + "/cpu.cfs_period_us")
                    else { return nil }
                    return self.quota(quotaMicroseconds: quota, periodMicroseconds: period)
                }
            } else {
                continue
            }
            for case let quota? in quotas { lowest = min(lowest ?? quota, quota) }
        }
        return lowest
    }

    /// The folders of the group at `path` and of every group above it, under each of `mounts`.
    private static func folders(of path: String, under mounts: [String]) -> [String] {
        var components = path.split(separator: "/")
        var folders: [String] = []
        while true {
            let relative = components.isEmpty ? "" : "/" + components.joined(separator: "/")
            folders += mounts.map { $0 + relative }
            guard !components.isEmpty else { return folders }
            components.removeLast()
        }
    }

    /// The groups of a `/proc/self/cgroup` listing: each line's controllers (none for version 2)
    /// and path (empty for the top).
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

    /// A small control file's first line (or all of it), nil when it cannot be read.
    private static func readSmall(_ path: String, wholeFile: Bool = false) -> String? {
        guard let data = try? FileIO.read(path, limit: 64 * 1024) else { return nil }
        return String(decoding: wholeFile ? data : data.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}
