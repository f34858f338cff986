import Foundation

/// TCP ports on 127.0.0.1 for the servers tests start (nginx, SeaweedFS): free ones, and whether one listens.
public enum FreePort {
    /// A port nobody listens on at the moment (the kernel's choice for port 0).
    public static func find() throws -> Int { try take(1)[0] }

    /// `count` different free ports, each socket held open until all are chosen so none comes twice.
    public static func take(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { for descriptor in sockets { close(descriptor) } }
        var ports: [Int] = []
        while ports.count < count {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw SetupFailure("cannot open a socket to find a free port") }
            sockets.append(descriptor)
            var address = loopback(port: 0)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
                }
            }
            guard bound else { throw SetupFailure("cannot bind a socket to find a free port") }
            let port = Int(UInt16(bigEndian: address.sin_port))
            if !ports.contains(port) { ports.append(port) }
        }
        return ports
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    public static func isListening(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Waits (up to five seconds) until something accepts connections on 127.0.0.1:`port`.
    public static func waitUntilListening(_ port: Int) throws {
        for _ in 0..<50 {
            if isListening(port) { return }
            usleep(100_000)
        }
        throw SetupFailure("nothing listens on 127.0.0.1:\(port) after five seconds")
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}
