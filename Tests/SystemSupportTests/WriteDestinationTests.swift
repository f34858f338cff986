import Dispatch
import Foundation
import SystemSupport
import TestSupport
import Testing

/// Writes land in what a path names: a link's file, a FIFO's reader, never a plain file renamed
/// over a link, a device or a pipe.
@Suite struct WriteDestinationTests {
    func write(_ text: String, to path: String) throws {
        let writer = try AtomicFileWriter(path: path)
        try Array(text.utf8).withUnsafeBytes { try FileIO.writeAll(writer.fileDescriptor, $0) }
        try writer.commit()
    }

    func fileType(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    @Test func aWriteThroughASymbolicLinkChangesTheFileItNamesAndKeepsTheLink() throws {
        try withTemporaryFolder { folder in
            try folder.create("real/Info.plist", Data("old".utf8))
            #expect(symlink("real/Info.plist", folder.path("Info.plist")) == 0)
            #expect(symlink("Info.plist", folder.path("again.plist")) == 0)  // a chain of two links
            try write("new", to: folder.path("again.plist"))
            #expect(fileType(folder.path("Info.plist")) == S_IFLNK)
            #expect(fileType(folder.path("again.plist")) == S_IFLNK)
            #expect(try String(contentsOfFile: folder.path("real/Info.plist"), encoding: .utf8) == "new")
            #expect(try WriteDestination.of(folder.path("again.plist")) == .file(folder.path("real/Info.plist")))
        }
    }

    @Test func aLinkToNothingGetsTheFileItNames() throws {
        try withTemporaryFolder { folder in
            #expect(symlink("made.txt", folder.path("link.txt")) == 0)
            try write("made", to: folder.path("link.txt"))
            #expect(fileType(folder.path("link.txt")) == S_IFLNK)
            #expect(try String(contentsOfFile: folder.path("made.txt"), encoding: .utf8) == "made")
        }
    }

    @Test func aFIFOIsWrittenIntoAndStaysAFIFO() throws {
        try withTemporaryFolder { folder in
            let fifo = folder.path("pipe")
            #expect(mkfifo(fifo, 0o600) == 0)
            let received = Locked(Data())
            let reading = DispatchGroup()
            DispatchQueue.global().async(group: reading) {
                if let handle = FileHandle(forReadingAtPath: fifo) { received.withLock { $0 = handle.readDataToEndOfFile() } }
            }
            try write("through the pipe", to: fifo)
            reading.wait()
            #expect(String(decoding: received.value, as: UTF8.self) == "through the pipe")
            #expect(fileType(fifo) == S_IFIFO)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["pipe"])
        }
    }

    /// `/dev/stdout` and `/dev/fd/N` name one of this process's descriptors (here a pipe, whose link
    /// reads "pipe:[1234]", not a path): written through a copy of it.
    @Test func anOpenPipeNamedThroughProcIsWrittenThroughItsDescriptor() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let path = "/proc/self/fd/\(ends[1])"
        #expect(try WriteDestination.of(path) == .descriptor(ends[1]))
        #expect(try WriteDestination.of("/dev/fd/\(ends[1])") == .descriptor(ends[1]))
        try write("piped", to: path)
        close(ends[1])
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(read(ends[0], &buffer, buffer.count) == 5)
        #expect(String(decoding: buffer[0..<5], as: UTF8.self) == "piped")
    }

    /// A file opened for appending (`>> log`) and named as `/dev/fd/N` is appended to through the
    /// descriptor, not replaced by a renamed file.
    @Test func aFileBehindADescriptorIsWrittenIntoWithTheShellsMode() throws {
        try withTemporaryFolder { folder in
            let log = try folder.create("log.txt", Data("head\n".utf8))
            let fd = open(log, O_WRONLY | O_APPEND)
            defer { close(fd) }
            var before = stat()
            #expect(stat(log, &before) == 0)
            try write("tail\n", to: "/dev/fd/\(fd)")
            var after = stat()
            #expect(stat(log, &after) == 0 && after.st_ino == before.st_ino)
            #expect(try String(contentsOfFile: log, encoding: .utf8) == "head\ntail\n")
        }
    }

    /// A relative link is read from its own folder as the kernel finds it: `proj/Info.plist ->
    /// ../Shared/Info.plist` with `proj` itself a link reaches the Shared folder beside the real
    /// proj (cutting `..` from the text reached one beside the link).
    @Test func aRelativeLinkInALinkedFolderReachesTheFileTheKernelReaches() throws {
        try withTemporaryFolder { folder in
            try folder.create("src/app/Shared/Info.plist", Data("old".utf8))
            try folder.create("src/app/proj/keep", Data())
            #expect(symlink("../Shared/Info.plist", folder.path("src/app/proj/Info.plist")) == 0)
            #expect(symlink("src/app/proj", folder.path("proj")) == 0)
            try write("new", to: folder.path("proj/Info.plist"))
            #expect(try String(contentsOfFile: folder.path("src/app/Shared/Info.plist"), encoding: .utf8) == "new")
            #expect(!FileManager.default.fileExists(atPath: folder.path("Shared")))
        }
    }

    /// A link to nothing where a folder must be made (an unmounted share) is an error, and stays.
    @Test func aLinkToNothingInTheWayOfAFolderIsAnErrorAndStays() throws {
        try withTemporaryFolder { folder in
            #expect(symlink("/nonexistent/share", folder.path("dist")) == 0)
            #expect(
                throws: Diagnostic.io("cannot be made: \(folder.path("dist")) is a symbolic link to nothing", file: folder.path("dist/sub"))
            ) {
                try FileIO.createFolder(folder.path("dist/sub"))
            }
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: folder.path("dist"))) == "/nonexistent/share")
        }
    }

    @Test func aFolderAndALoopOfLinksAreClearErrors() throws {
        try withTemporaryFolder { folder in
            #expect(throws: Diagnostic.io("is a folder, not a file", file: folder.url.path)) {
                try WriteDestination.of(folder.url.path)
            }
            #expect(symlink("b", folder.path("a")) == 0)
            #expect(symlink("a", folder.path("b")) == 0)
            #expect(throws: Diagnostic.io("cannot be written: too many levels of symbolic links", file: folder.path("a"))) {
                try write("x", to: folder.path("a"))
            }
        }
    }

    /// The temporary name carries at most 160 bytes of the target's, so a file with a long name
    /// (Linux allows 255 bytes) can still be replaced.
    @Test func aFileWithALongNameCanBeReplaced() throws {
        try withTemporaryFolder { folder in
            let name = String(repeating: "é", count: 95) + String(repeating: "x", count: 55) + ".plist"  // 251 bytes
            try folder.create(name, Data("old".utf8))
            try write("new", to: folder.path(name))
            #expect(try String(contentsOfFile: folder.path(name), encoding: .utf8) == "new")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == [name])
        }
    }
}
