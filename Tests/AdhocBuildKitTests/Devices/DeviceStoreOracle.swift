import Foundation
import TestSupport
import Testing

/// The device store as Python's plistlib reads it, dates as ISO 8601 text (UTC) and data as hex, so
/// tests check the written file with a parser of someone else's.
enum DeviceStoreOracle {
    static let script = """
        import plistlib, json, sys, datetime
        def plain(v):
            if isinstance(v, dict): return {k: plain(x) for k, x in v.items()}
            if isinstance(v, list): return [plain(x) for x in v]
            if isinstance(v, bytes): return v.hex()
            if isinstance(v, datetime.datetime): return v.strftime('%Y-%m-%dT%H:%M:%SZ')
            return v
        with open(sys.argv[1], 'rb') as f:
            head = f.read(6)
            f.seek(0)
            root = plistlib.load(f)
        print(json.dumps({'xml': head == b'<?xml ', 'keys': list(root.keys()), 'root': plain(root)}))
        """

    /// The file's top-level keys in order, whether it is XML, and its content.
    static func read(_ path: String) throws -> (xml: Bool, keys: [String], root: [String: Any]) {
        let python = try #require(ProcessResult.which("python3"))
        let run = try ProcessResult.run(python, ["-c", script, path])
        try #require(run.status == 0, "\(run.stderrText)")
        let object = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let keys = try #require(object["keys"] as? [String])
        let root = try #require(object["root"] as? [String: Any])
        return (object["xml"] as? Bool == true, keys, root)
    }

    /// The devices' dictionaries, in order.
    static func devices(_ path: String) throws -> [[String: Any]] {
        try #require(try read(path).root["Devices"] as? [[String: Any]])
    }

    /// The UDIDs listed, in order.
    static func udids(_ path: String) throws -> [String] {
        try devices(path).map { try #require($0["UDID"] as? String) }
    }
}
