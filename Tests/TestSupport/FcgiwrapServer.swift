import Foundation

/// Debian's `fcgiwrap` for a test: CGI scripts behind a FastCGI socket that nginx passes requests to,
/// until ``stop()``.
///
/// It runs in a process group of its own, because the workers `-c N` forks outlive their parent when
/// only the parent is signalled; ``stop()`` signals the whole group. The scripts' standard error goes to
/// ``stderrPath`` (opened for appending, so the lines of concurrent requests do not mix), where a test
/// reads the one log line each request writes.
public final class FcgiwrapServer {
    /// Where fcgiwrap is, or nil when it is not installed.
    public static var executable: String? {
        ProcessResult.which("fcgiwrap") ?? (FileManager.default.fileExists(atPath: "/usr/sbin/fcgiwrap") ? "/usr/sbin/fcgiwrap" : nil)
    }

    /// An nginx `location` that hands the requests for `path` to the CGI program `script` through fcgiwrap's
    /// `socket`, refusing bodies over `maxBody` (nginx's size syntax, `64k`) with 413 before the script runs.
    /// The `location` that serves an enrollment profile with the type iOS installs it by
    /// (`application/x-apple-aspen-config`, which Debian's `mime.types` lacks).
    public static let profileTypeLocation = [
        "location ~ \\.mobileconfig$ {",
        "    types { }",
        "    default_type application/x-apple-aspen-config;",
        "}"
    ]

    public static func nginxLocation(path: String, script: String, socket: String, maxBody: String = "64k") -> [String] {
        [
            "location = \(path) {",
            "    client_max_body_size \(maxBody);",
            "    include       /etc/nginx/fastcgi_params;",
            "    fastcgi_param SCRIPT_FILENAME \(script);",
            "    fastcgi_pass  unix:\(socket);",
            "}"
        ]
    }

    /// The socket nginx's `fastcgi_pass unix:` names: in a short folder of its own, since a socket's path
    /// must be shorter than 108 bytes and test folders can be long.
    public let socket: String
    /// What the scripts (and fcgiwrap) wrote on standard error.
    public let stderrPath: String
    private let folder: String
    private var pid: pid_t = 0

    /// Starts `executable -c workers -s unix:SOCKET`, allowing only `scripts` (`-p`), and waits until the
    /// socket exists; when the tests run as root the socket is opened to nginx's `nobody` workers.
    public init(executable: String, scripts: [String], workers: Int = 8, stderrPath: String) throws {
        var template = Array("/tmp/ab-fcgi-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SetupFailure("cannot make a folder for fcgiwrap's socket") }
        folder = String(cString: made)
        chmod(folder, 0o755)
        socket = folder + "/fcgi.sock"
        self.stderrPath = stderrPath
        var arguments = [executable, "-c", String(workers), "-s", "unix:" + socket]
        for script in scripts { arguments += ["-p", script] }
        pid = try Self.spawn(arguments, stderrPath: stderrPath)
        do { try waitForSocket() } catch {
            stop()
            throw error
        }
    }

    /// Starts the program in a new process group, standard input from /dev/null and standard error appended to
    /// `stderrPath`.
    static func spawn(_ arguments: [String], stderrPath: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The test process blocks signals on its threads, and a child inherits its mask: unblocked, and every
        // signal at its default, or fcgiwrap would never see the SIGTERM that stops it.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, arguments[0], &actions, &attributes, &argv, environ)
        guard status == 0 else { throw SetupFailure("cannot start \(arguments[0]): \(String(cString: strerror(status)))") }
        return child
    }

    private func waitForSocket() throws {
        for _ in 0..<50 {
            var status = stat()
            if stat(socket, &status) == 0 {
                if getuid() == 0 { chmod(socket, 0o666) }
                return
            }
            var exitStatus: Int32 = 0
            if waitpid(pid, &exitStatus, WNOHANG) == pid {
                pid = 0
                let log = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
                throw SetupFailure("fcgiwrap exited before making its socket: \(log)")
            }
            usleep(100_000)
        }
        throw SetupFailure("fcgiwrap made no socket at \(socket) after five seconds")
    }

    /// Stops fcgiwrap and its workers (SIGTERM to the group, SIGKILL after five seconds) and removes the
    /// socket's folder.
    public func stop() {
        defer {
            unlink(socket)
            rmdir(folder)
        }
        guard pid > 0 else { return }
        let group = pid
        pid = 0
        kill(-group, SIGTERM)
        // The workers are reparented once their parent is gone; wait until the whole group has ended.
        var exitStatus: Int32 = 0, parentEnded = false
        for _ in 0..<50 {
            if !parentEnded { parentEnded = waitpid(group, &exitStatus, WNOHANG) == group }
            if parentEnded && kill(-group, 0) != 0 { return }
            usleep(100_000)
        }
        kill(-group, SIGKILL)
        if !parentEnded { waitpid(group, &exitStatus, 0) }
    }

    deinit { stop() }
}
