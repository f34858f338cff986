import Foundation

/// Names of the temporary files and folders adhocbuild makes (`.adhocbuild-tmp-<name>-<pid>.<start>-<random>`),
/// for tests of what a later run removes: a killed run's are removed, a running one's are not.
public enum Leftover {
    /// One left by a process that is gone (an id above any Linux gives).
    public static func dead(_ name: String) -> String { ".adhocbuild-tmp-\(name)-\(Int32.max - 1).5-dead" }

    /// One of this test process, which runs on while the command under test does, with its start time
    /// as `/proc/self/stat` gives it (field 22).
    public static func live(_ name: String) throws -> String {
        let stat = try String(contentsOfFile: "/proc/self/stat", encoding: .utf8)
        guard let close = stat.lastIndex(of: ")") else { throw SetupFailure("/proc/self/stat is not as Linux writes it") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19 else { throw SetupFailure("/proc/self/stat is not as Linux writes it") }
        return ".adhocbuild-tmp-\(name)-\(getpid()).\(fields[19])-live"
    }

    /// The names under `folder` (one level) that are adhocbuild's temporary names.
    public static func names(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix(".adhocbuild-tmp-") }.sorted()
    }
}
