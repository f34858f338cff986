import SystemSupport

/// A path to a value inside a plist, in PlistBuddy's notation: keys and array indexes
/// joined by `:` (`CFBundleIcons:CFBundlePrimaryIcon:CFBundleIconFiles:0`).
///
/// A key that contains `:` or `\` escapes it with a backslash (`a\:b` is the one key `a:b`).
/// A component addresses an array element when the value it meets is an array.
public struct PlistKeyPath: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral
{
    public var components: [String]

    public init(_ components: [String]) { self.components = components }

    public static let root = PlistKeyPath([])

    /// Parses the `:`-separated notation; an empty string is the root.
    public init(parsing text: String) {
        guard !text.isEmpty else { components = []; return }
        var result: [String] = []
        var current = ""
        var escaping = false
        for char in text {
            if escaping {
                current.append(char); escaping = false
            } else if char == "\\" {
                escaping = true
            } else if char == ":" {
                result.append(current); current = ""
            } else {
                current.append(char)
            }
        }
        if escaping { current.append("\\") }
        result.append(current)
        components = result
    }

    public init(stringLiteral value: String) { self.init(parsing: value) }

    /// The path of these components, taken as they are (no escaping needed).
    public init(arrayLiteral components: String...) { self.init(components) }

    public func appending(_ component: String) -> PlistKeyPath { PlistKeyPath(components + [component]) }
    public func appending(_ index: Int) -> PlistKeyPath { appending(String(index)) }

    public var parent: PlistKeyPath? { components.isEmpty ? nil : PlistKeyPath(Array(components.dropLast())) }
    public var last: String? { components.last }
    public var isRoot: Bool { components.isEmpty }

    /// The path in the notation `init(parsing:)` reads, escaping `:` and `\` in keys.
    public var description: String {
        components.map { component in
            var escaped = ""
            for char in component {
                if char == ":" || char == "\\" { escaped.append("\\") }
                escaped.append(char)
            }
            return escaped
        }.joined(separator: ":")
    }
}

extension PlistValue {
    /// The value at `path`, or nil when any step is missing.
    public subscript(path: PlistKeyPath) -> PlistValue? {
        var current = self
        for component in path.components {
            switch current {
            case .dictionary(let dict):
                guard let next = dict[component] else { return nil }
                current = next
            case .array(let array):
                guard let index = Int(component), array.indices.contains(index) else { return nil }
                current = array[index]
            default:
                return nil
            }
        }
        return current
    }

    /// The value at `path`, or an error naming the first step that does not resolve.
    public func value(at path: PlistKeyPath) throws -> PlistValue {
        var current = self
        for (depth, component) in path.components.enumerated() {
            let here = PlistKeyPath(Array(path.components.prefix(depth)))
            switch current {
            case .dictionary(let dict):
                guard let next = dict[component] else {
                    throw Diagnostic.plist(.keyPath, "no key '\(component)'", keyPath: here.description)
                }
                current = next
            case .array(let array):
                guard let index = Int(component) else {
                    throw Diagnostic.plist(.keyPath, "'\(component)' is not an array index", keyPath: here.description)
                }
                guard array.indices.contains(index) else {
                    throw Diagnostic.plist(
                        .keyPath, "index \(index) is out of range (the array has \(array.count) items)",
                        keyPath: here.description)
                }
                current = array[index]
            default:
                throw Diagnostic.plist(
                    .keyPath, "cannot look up '\(component)' in \(current.kindWithArticle)",
                    keyPath: here.description)
            }
        }
        return current
    }

    /// Sets the value at `path`, creating missing intermediate dictionaries.
    ///
    /// An array index equal to the array's count appends. A step through a scalar is an error.
    public mutating func setValue(_ newValue: PlistValue, at path: PlistKeyPath) throws {
        try setValue(newValue, at: path.components[...], done: [])
    }

    private mutating func setValue(_ newValue: PlistValue, at rest: ArraySlice<String>, done: [String]) throws {
        guard let component = rest.first else { self = newValue; return }
        let here = PlistKeyPath(done).description
        switch self {
        case .dictionary(var dict):
            var child = dict[component] ?? Self.emptyContainer(before: rest.dropFirst().first)
            self = .string("")  // release our reference so `dict` is uniquely owned while it changes
            do {
                try child.setValue(newValue, at: rest.dropFirst(), done: done + [component])
            } catch {
                self = .dictionary(dict)  // a failed set leaves the value as it was
                throw error
            }
            dict[component] = child
            self = .dictionary(dict)
        case .array(var array):
            guard let index = Int(component), index >= 0, index <= array.count else {
                throw Diagnostic.plist(
                    .keyPath, "'\(component)' is not an index of this array of \(array.count) items",
                    keyPath: here)
            }
            if index == array.count {
                // One past the end appends, as PlistBuddy does; deeper components build the new item.
                var child = rest.count == 1 ? newValue : Self.emptyContainer(before: rest.dropFirst().first)
                if rest.count > 1 { try child.setValue(newValue, at: rest.dropFirst(), done: done + [component]) }
                array.append(child)
            } else {
                var child = array[index]
                try child.setValue(newValue, at: rest.dropFirst(), done: done + [component])
                array[index] = child
            }
            self = .array(array)
        default:
            throw Diagnostic.plist(.keyPath, "cannot set '\(component)' inside \(kindWithArticle)", keyPath: here)
        }
    }

    /// The container made for a missing parent: an array when the component that follows is an
    /// index (`CFBundleURLTypes:0:…` makes CFBundleURLTypes an array), a dictionary otherwise.
    static func emptyContainer(before next: String?) -> PlistValue {
        if let next, !next.isEmpty, next.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) { return .array([]) }
        return .dictionary(PlistDictionary())
    }

    /// Removes the value at `path` and returns it; an error when it does not exist.
    @discardableResult
    public mutating func removeValue(at path: PlistKeyPath) throws -> PlistValue {
        guard let last = path.last, let parentPath = path.parent else {
            throw Diagnostic.plist(.keyPath, "cannot delete the root value", keyPath: "")
        }
        _ = try value(at: path)
        var removed: PlistValue = .bool(false)
        try modify(at: parentPath) { parent in
            switch parent {
            case .dictionary(var dict):
                removed = dict.removeValue(forKey: last)!
                parent = .dictionary(dict)
            case .array(var array):
                removed = array.remove(at: Int(last)!)
                parent = .array(array)
            default:
                break
            }
        }
        return removed
    }

    /// Applies `change` to the existing value at `path`.
    public mutating func modify(at path: PlistKeyPath, _ change: (inout PlistValue) throws -> Void) throws {
        var target = try value(at: path)
        try change(&target)
        try setValue(target, at: path)
    }
}

extension PlistDictionary {
    /// The value at `path` inside this dictionary, or nil when any step is missing.
    public subscript(keyPath path: PlistKeyPath) -> PlistValue? { PlistValue.dictionary(self)[path] }
}
