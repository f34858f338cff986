import SystemSupport

/// Where in a store a release goes: `s3://BUCKET/PREFIX/`, parsed as the AWS CLI takes it.
///
/// The prefix is a folder: empty, or ending in `/` (one is added when missing). Empty segments
/// (`a//b`) and `.` or `..` segments are refused, since stores and tools treat them differently.
public struct S3Location: Sendable, Equatable, Hashable, CustomStringConvertible {
    public let bucket: String
    /// The key prefix: `""` or `builds/ios/`.
    public let prefix: String

    /// Parses `s3://BUCKET` or `s3://BUCKET/PREFIX/`; the error names the bad value and what is wrong.
    public init(parsing text: String) throws {
        func bad(_ why: String) -> Diagnostic {
            Diagnostic.storage(.invalidArgument, "'\(text)' is not an s3:// location: \(why)", hint: "write s3://BUCKET/PREFIX/")
        }
        guard text.hasPrefix("s3://") else { throw bad("it must start with s3://") }
        let rest = text.dropFirst(5)
        let slash = rest.firstIndex(of: "/")
        let bucket = String(rest[..<(slash ?? rest.endIndex)])
        guard !bucket.isEmpty else { throw bad("the bucket name is missing") }
        if let problem = Self.bucketNameProblem(bucket) { throw bad("bucket name '\(bucket)' \(problem)") }
        var prefix = slash.map { String(rest[rest.index(after: $0)...]) } ?? ""
        if !prefix.isEmpty && !prefix.hasSuffix("/") { prefix += "/" }
        for segment in prefix.split(separator: "/", omittingEmptySubsequences: false).dropLast() {
            if segment.isEmpty { throw bad("the prefix has an empty segment ('//')") }
            if segment == "." || segment == ".." { throw bad("the prefix has a '\(segment)' segment") }
        }
        self.init(bucket: bucket, prefix: prefix)
    }

    /// A location from parts already checked.
    public init(bucket: String, prefix: String) {
        self.bucket = bucket
        self.prefix = prefix
    }

    /// The key of `relative` (`Staging/1.0-57/app.ipa`) under the prefix.
    public func key(_ relative: String) -> String { prefix + relative.drop { $0 == "/" } }

    /// The location of the folder `relative` under this one.
    public func appending(_ relative: String) -> S3Location {
        let folder = key(relative)
        return S3Location(bucket: bucket, prefix: folder.isEmpty || folder.hasSuffix("/") ? folder : folder + "/")
    }

    public var description: String { "s3://\(bucket)/\(prefix)" }

    /// What is wrong with a bucket name, as the AWS CLI checks it (letters, digits, `.`, `-`, `_`;
    /// 3 to 255 characters), or nil.
    static func bucketNameProblem(_ name: String) -> String? {
        guard (3...255).contains(name.count) else { return "must have 3 to 255 characters" }
        let allowed = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || ".-_".unicodeScalars.contains($0)
        }
        return allowed ? nil : "may hold only letters, digits, '.', '-' and '_'"
    }
}
