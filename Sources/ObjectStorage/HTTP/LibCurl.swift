import CLibCurl
import Foundation
import SystemSupport

/// The functions of libcurl's easy interface, looked up in `libcurl.so.4` when the first request is
/// sent.
///
/// Loading libcurl at start would load it and the 27 libraries it needs (TLS, HTTP/2, IDN, Kerberos,
/// LDAP, SSH…) into every command, where only those that talk to a store send requests (`publish`,
/// `links`, and `prune` and `release` given a store): about 4 ms of start-up, half of what
/// `adhocbuild codesign verify` spent before `main`. So nothing outside this
/// type calls libcurl by name (which would make the linker keep it), and the executable is linked
/// with `--as-needed`, which drops the `-lcurl` pkg-config gives when nothing names it.
struct LibCurl: @unchecked Sendable {
    /// The file `dlopen` loads: libcurl's soname for its ABI 4 (Debian's `libcurl4`).
    static let soname = "libcurl.so.4"

    let easyInit: @convention(c) () -> UnsafeMutableRawPointer?
    let easyCleanup: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let easyReset: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let easyPerform: @convention(c) (UnsafeMutableRawPointer?) -> CURLcode
    let easyStrerror: @convention(c) (CURLcode) -> UnsafePointer<CChar>?
    let slistAppend: @convention(c) (UnsafeMutablePointer<curl_slist>?, UnsafePointer<CChar>?) -> UnsafeMutablePointer<curl_slist>?
    let slistFreeAll: @convention(c) (UnsafeMutablePointer<curl_slist>?) -> Void
    /// `curl_easy_setopt`, variadic: called through the shim's `shim_curl_easy_setopt_*`.
    let easySetopt: UnsafeMutableRawPointer

    /// libcurl, loaded and initialised (`curl_global_init`) once per process; or why it could not be.
    static let shared: Result<LibCurl, Diagnostic> = load(soname)

    /// The loaded library, or the error that says it is missing.
    static func loaded() throws -> LibCurl { try shared.get() }

    /// Loads `file` with `dlopen`, looks up each function and calls `curl_global_init`.
    static func load(_ file: String) -> Result<LibCurl, Diagnostic> {
        func failure(_ reason: String) -> Result<LibCurl, Diagnostic> {
            .failure(
                Diagnostic.storage(
                    .httpClient, "the HTTP client cannot be loaded: \(reason)", subject: file,
                    hint: "install libcurl; on Debian 12: apt-get install libcurl4"))
        }
        guard let library = dlopen(file, RTLD_NOW | RTLD_LOCAL) else {
            // dlerror starts with the file's name, which the message names already.
            let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
            return failure(reason.hasPrefix(file + ": ") ? String(reason.dropFirst(file.count + 2)) : reason)
        }
        var missing: [String] = []
        func symbol<Function>(_ name: String, as type: Function.Type) -> Function? {
            guard let address = dlsym(library, name) else {
                missing.append(name)
                return nil
            }
            return unsafeBitCast(address, to: type)
        }
        let globalInit = symbol("curl_global_init", as: (@convention(c) (Int) -> CURLcode).self)
        let easyInit = symbol("curl_easy_init", as: (@convention(c) () -> UnsafeMutableRawPointer?).self)
        let easyCleanup = symbol("curl_easy_cleanup", as: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self)
        let easyReset = symbol("curl_easy_reset", as: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self)
        let easyPerform = symbol("curl_easy_perform", as: (@convention(c) (UnsafeMutableRawPointer?) -> CURLcode).self)
        let easyStrerror = symbol("curl_easy_strerror", as: (@convention(c) (CURLcode) -> UnsafePointer<CChar>?).self)
        let slistAppend = symbol(
            "curl_slist_append",
            as: (@convention(c) (UnsafeMutablePointer<curl_slist>?, UnsafePointer<CChar>?) -> UnsafeMutablePointer<curl_slist>?).self)
        let slistFreeAll = symbol("curl_slist_free_all", as: (@convention(c) (UnsafeMutablePointer<curl_slist>?) -> Void).self)
        let easySetopt = symbol("curl_easy_setopt", as: UnsafeMutableRawPointer.self)
        guard let globalInit, let easyInit, let easyCleanup, let easyReset, let easyPerform, let easyStrerror,
            let slistAppend, let slistFreeAll, let easySetopt
        else {
            dlclose(library)
            return failure("it has no \(missing.joined(separator: ", "))")
        }
        guard globalInit(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK else { return failure("curl_global_init failed") }
        return .success(
            LibCurl(
                easyInit: easyInit, easyCleanup: easyCleanup, easyReset: easyReset, easyPerform: easyPerform,
                easyStrerror: easyStrerror, slistAppend: slistAppend, slistFreeAll: slistFreeAll, easySetopt: easySetopt))
    }
}
