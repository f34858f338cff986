import Crypto
import Foundation
import SystemSupport

// With TZ unset, glibc checks /etc/localtime again on every local-time conversion, and libzip
// converts two DOS times per entry when it reopens an archive to check it: thousands of stat
// calls for an ipa. Naming the same zone file once gives the same zone without them.
if getenv("TZ") == nil { setenv("TZ", ":/etc/localtime", 1) }

// libcrypto's tables stay until the process ends, as everything else's does: its cleanup at exit
// freed them one by one after the command had finished.
LibCryptoProcess.initializeWithoutCleanupAtExit()

// Ctrl-C and SIGTERM remove this process's work files before it exits (130, 143); set up before any
// other thread starts, so that every thread inherits the blocked signals.
Interruption.install()

// The readers and writers of nested formats (plists, DER, templates) recurse once per level, each
// bounded by its own depth limit; the command runs on a thread whose stack holds the deepest nesting
// any limit allows (ADHOCBUILD_MAX_PLIST_DEPTH up to its ceiling), where the main thread's 8 MiB did
// not (a 20,000-deep JSON plist crashed). Only the pages used are ever touched.
CommandThread.run(stackSize: CommandThread.stackSize) { AdhocBuildCLI.run(Array(CommandLine.arguments.dropFirst())) }
