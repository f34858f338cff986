import Foundation
import SystemSupport

/// The rule for symbolic links in a bundle that is signed or packaged, the same for both: a link
/// must be relative, must not climb above the bundle's top by its text, and must not lead out
/// through another link. A bundle holding `passwd -> /etc/passwd` is refused, not sealed and
/// published.
public enum BundleLinks {
    /// Throws an ``Diagnostic`` naming the first link in the bundle folder `bundle` that breaks the
    /// rule, and where it leads.
    public static func checkInside(bundle: String) throws {
        let top = bundle.count > 1 && bundle.hasSuffix("/") ? String(bundle.dropLast()) : bundle
        // Kinds and links alone: no file's size or permissions are needed.
        _ = try BundleTree.entries(of: top, prefix: (top as NSString).lastPathComponent, statsFiles: false)
    }
}
