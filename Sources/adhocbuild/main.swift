import Foundation

// With TZ unset, glibc checks /etc/localtime again on every local-time conversion, and libzip
// converts two DOS times per entry when it reopens an archive to check it: thousands of stat
// calls for an ipa. Naming the same zone file once gives the same zone without them.
if getenv("TZ") == nil { setenv("TZ", ":/etc/localtime", 1) }

exit(AdhocBuildCLI.run(Array(CommandLine.arguments.dropFirst())))
