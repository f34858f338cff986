import CLibCrypto

/// libcrypto's error queue, read as one line.
public enum LibCryptoErrors {
    /// libcrypto's queued errors as one line (the last reason first), and the queue emptied.
    public static func drain() -> String {
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            if let text = ERR_reason_error_string(code) {
                reasons.append(String(cString: text))
            } else {
                reasons.append("error 0x" + String(code, radix: 16))
            }
        }
        var seen = Set<String>()
        let unique = reasons.reversed().filter { seen.insert($0).inserted }
        return unique.isEmpty ? "no reason given" : unique.joined(separator: "; ")
    }

    /// Empties libcrypto's error queue (before a call whose errors are read).
    public static func clear() { ERR_clear_error() }
}
