import Foundation
import SystemSupport
import Testing

/// A full disk is recognised however the failed write was wrapped, and told by the output and the disk.
@Suite struct DiskSpaceTests {
    @Test func aFullDiskIsRecognisedWhereverItsErrorWasWrapped() {
        #expect(DiskSpace.isFull(Diagnostic.system("cannot be written", file: "x", code: ENOSPC)))
        #expect(DiskSpace.isFull(Diagnostic.system("cannot be written", file: "x", code: EDQUOT)))
        #expect(!DiskSpace.isFull(Diagnostic.system("cannot be written", file: "x", code: EACCES)))
        #expect(DiskSpace.isFull(NSError(domain: NSCocoaErrorDomain, code: CocoaError.fileWriteOutOfSpace.rawValue)))
        #expect(
            DiskSpace.isFull(
                NSError(
                    domain: NSCocoaErrorDomain, code: 512,
                    userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(ENOSPC))])))
        #expect(DiskSpace.isFull(Diagnostic.system("cannot be written", file: "x", code: ENOSPC)))
        #expect(!DiskSpace.isFull(Diagnostic.io("no such file", file: "x")))
        // Its own error is not taken for another.
        #expect(!DiskSpace.isFull(DiskSpace.fullError(writing: "dist")))
    }

    @Test func theDiskIsNamedByWhereItIsMounted() {
        #expect(DiskSpace.mountPoint(of: "/proc/self/status") == "/proc")
        #expect(DiskSpace.mountPoint(of: "/proc/no/such/file") == "/proc")
        #expect(DiskSpace.mountPoint(of: "/") == "/")
        #expect(
            DiskSpace.fullError(writing: "/proc/x").description
                == "no space left on the disk holding /proc/x (the file system mounted at /proc)")
    }
}
