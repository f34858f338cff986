import Foundation
import SystemSupport

/// nginx on 127.0.0.1 for a test: serves a folder with the MIME types Apple asks for, until ``stop()``.
public final class NginxServer {
    /// Where nginx is, or nil when it is not installed.
    public static var executable: String? {
        ProcessResult.which("nginx") ?? (FileManager.default.fileExists(atPath: "/usr/sbin/nginx") ? "/usr/sbin/nginx" : nil)
    }

    /// The configuration: `root` on 127.0.0.1:`port`, its state in `runtime`; `listen` adds to the
    /// listen line (`ssl`) and `server` holds further lines for the server block (certificates, headers).
    public static func config(port: Int, root: String, runtime: String, listen: String = "", server: [String] = []) -> String {
        let serverLines = server.map { "\n        \($0)" }.joined()
        return """
            daemon off;
            pid \(runtime)/nginx.pid;
            error_log \(runtime)/error.log;
            events {}
            http {
                access_log off;
                client_body_temp_path \(runtime)/body;
                proxy_temp_path \(runtime)/proxy;
                fastcgi_temp_path \(runtime)/fastcgi;
                uwsgi_temp_path \(runtime)/uwsgi;
                scgi_temp_path \(runtime)/scgi;
                types {
                    text/html                 html;
                    text/css                  css;
                    application/javascript    js;
                    text/xml                  plist;
                    application/json          json;
                    image/png                 png;
                    application/octet-stream  ipa;
                }
                default_type application/octet-stream;
                server {
                    listen 127.0.0.1:\(port)\(listen.isEmpty ? "" : " " + listen);
                    server_name localhost;
                    root \(root);
                    index index.html;\(serverLines)
                }
            }
            """
    }

    private let process = Process()

    /// Starts nginx with `config` (written to `runtime/nginx.conf`) and waits until it listens on `port`.
    public init(executable: String, config: String, runtime: String, port: Int) throws {
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let configPath = runtime + "/nginx.conf"
        try Data(config.utf8).write(to: URL(fileURLWithPath: configPath))
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-c", configPath, "-p", runtime, "-e", runtime + "/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        do { try FreePort.waitUntilListening(port) } catch {
            stop()
            throw error
        }
    }

    /// Stops nginx and waits for it to exit.
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
