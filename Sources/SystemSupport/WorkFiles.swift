import Foundation

/// The temporary files and folders this process makes beside its outputs (``FileIO/temporaryPath(for:)``),
/// so that an interrupt (``Interruption``) can remove them before the process exits.
///
/// What is kept is the folders temporary names were made in: a temporary name carries its owner (the
/// process id and start time), so every name of this process in those folders is its own, whoever made
/// it (a library writing `<temporary>.XXXXXX` beside a temporary file included).
///
/// Making a temporary file or folder, and making folders (``FileIO/createFolder(_:)``), happens under
/// ``creating(_:)``'s lock, which an interrupt takes and keeps until the process exits: once a work
/// folder is removed, nothing can make it again, and what a worker thread still writes inside it goes
/// into a folder that is gone.
public enum WorkFiles {
    /// Held while something is made, and by the interrupt from the moment it starts removing.
    private static let lock = NSLock()
    /// The folders temporary names were made in (absolute). Read and written under `lock`.
    nonisolated(unsafe) private static var folders: Set<String> = []

    /// Notes that this process makes temporary names in `folder`.
    static func register(folder: String) {
        lock.lock()
        defer { lock.unlock() }
        folders.insert(folder)
    }

    /// Runs `make` (a `mkdir`, an `open` with `O_CREAT`) holding the lock an interrupt takes: what it
    /// makes is there before an interrupt removes this process's work files, or is never made.
    public static func creating<T>(_ make: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try make()
    }

    /// Takes the lock for good and removes every temporary file and folder of this process; then
    /// nothing more can be made. Called once, by the interrupt, which exits right after.
    static func removeAllForExit() {
        lock.lock()
        for folder in folders.sorted(by: { $0.count < $1.count }) {
            for name in FileIO.temporaryNames(in: folder) where FileIO.isOwnTemporary(name) {
                remove(folder + "/" + name)
            }
        }
    }

    /// Removes the file or folder at `path`, again while a worker thread still adds files inside it
    /// (a folder is removed only once empty; what is added after that has nowhere to go).
    static func remove(_ path: String) {
        var info = stat()
        for _ in 0..<100 {
            try? FileManager.default.removeItem(atPath: path)
            if lstat(path, &info) != 0 { return }
        }
    }
}
