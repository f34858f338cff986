import PlistKit
import SystemSupport
import Testing

@Suite struct PlistKeyPathTests {
    static let info: PlistValue = [
        "CFBundleIcons": ["CFBundlePrimaryIcon": ["CFBundleIconFiles": ["AppIcon60x60", "AppIcon76x76"]]],
        "com.apple:colon": "escaped"
    ]

    @Test func resolvesPlistBuddyStylePathsThroughDictionariesAndArrays() throws {
        #expect(Self.info["CFBundleIcons:CFBundlePrimaryIcon:CFBundleIconFiles:1"] == "AppIcon76x76")
        #expect(Self.info["CFBundleIcons:CFBundlePrimaryIcon:CFBundleIconFiles:2"] == nil)
        #expect(Self.info[PlistKeyPath.root] == Self.info)
    }

    @Test func escapesColonsAndBackslashesInKeys() throws {
        let path = PlistKeyPath(parsing: "com.apple\\:colon")
        #expect(path.components == ["com.apple:colon"])
        #expect(Self.info[path] == "escaped")
        #expect(PlistKeyPath(["a:b", "c\\d", "e"]).description == "a\\:b:c\\\\d:e")
        #expect(PlistKeyPath(parsing: PlistKeyPath(["a:b", "c\\d"]).description).components == ["a:b", "c\\d"])
    }

    @Test func explainsTheFirstStepThatDoesNotResolve() {
        #expect(throws: Diagnostic.plist(.keyPath, "no key 'Missing'", keyPath: "CFBundleIcons")) {
            try Self.info.value(at: "CFBundleIcons:Missing:Deeper")
        }
        #expect(
            throws: Diagnostic.plist(
                .keyPath, "index 5 is out of range (the array has 2 items)",
                keyPath: "CFBundleIcons:CFBundlePrimaryIcon:CFBundleIconFiles")
        ) {
            try Self.info.value(at: "CFBundleIcons:CFBundlePrimaryIcon:CFBundleIconFiles:5")
        }
        #expect(throws: Diagnostic.plist(.keyPath, "cannot look up 'x' in a string", keyPath: "com.apple\\:colon")) {
            try Self.info.value(at: "com.apple\\:colon:x")
        }
    }

    @Test func settingCreatesIntermediateDictionariesAndAppendsAtTheArrayEnd() throws {
        var value = Self.info
        try value.setValue("new", at: "A:B:C")
        try value.setValue("AppIcon83", at: "CFBundleIcons:CFBundlePrimaryIcon:CFBundleIconFiles:2")
        try value.setValue("replaced", at: "CFBundleIcons:CFBundlePrimaryIcon:CFBundleIconFiles:0")
        #expect(value["A:B:C"] == "new")
        #expect(value["CFBundleIcons:CFBundlePrimaryIcon:CFBundleIconFiles"] == ["replaced", "AppIcon76x76", "AppIcon83"])
        #expect(throws: Diagnostic.plist(.keyPath, "cannot set 'x' inside a string", keyPath: "A:B:C")) {
            try value.setValue(1, at: "A:B:C:x")
        }
    }

    /// `CFBundleURLTypes:0:CFBundleURLSchemes` under a missing CFBundleURLTypes makes the array iOS
    /// expects, not a dictionary with the key "0"; an index one past the end appends a new item,
    /// and one further is an error.
    @Test func aNumericComponentUnderAMissingParentMakesAnArray() throws {
        var value: PlistValue = [:]
        try value.setValue(["shoutout"], at: "CFBundleURLTypes:0:CFBundleURLSchemes")
        #expect(value == ["CFBundleURLTypes": [["CFBundleURLSchemes": ["shoutout"]]]])
        try value.setValue("com.example.shoutout", at: "CFBundleURLTypes:0:CFBundleURLName")
        try value.setValue(["other"], at: "CFBundleURLTypes:1:CFBundleURLSchemes")
        #expect(value["CFBundleURLTypes"]?.arrayValue?.count == 2)
        #expect(value["CFBundleURLTypes:0:CFBundleURLName"] == "com.example.shoutout")
        try value.setValue("x", at: "Grid:0:0")
        #expect(value["Grid"] == [["x"]])
        #expect(throws: Diagnostic.plist(.keyPath, "'3' is not an index of this array of 2 items", keyPath: "CFBundleURLTypes")) {
            try value.setValue("y", at: "CFBundleURLTypes:3:Name")
        }
        let before = value
        #expect(throws: Diagnostic.plist(.keyPath, "'2' is not an index of this array of 0 items", keyPath: "Fresh")) {
            try value.setValue("y", at: "Fresh:2:Name")
        }
        #expect(value == before, "a failed set changed the value")
    }

    @Test func removingTakesTheValueOutAndKeepsTheRestInOrder() throws {
        var value: PlistValue = ["a": 1, "b": [1, 2, 3], "c": 3]
        #expect(try value.removeValue(at: "b:1") == 2)
        #expect(try value.removeValue(at: "a") == 1)
        #expect(value == ["b": [1, 3], "c": 3])
        #expect(value.dictionaryValue?.keys == ["b", "c"])
        #expect(throws: Diagnostic.plist(.keyPath, "no key 'zz'", keyPath: "")) { try value.removeValue(at: "zz") }
    }
}

@Suite struct PlistDictionaryTests {
    @Test func keepsInsertionOrderAcrossTheIndexThreshold() {
        var dict = PlistDictionary()
        let keys = (0..<40).map { "key\(39 - $0)" }
        for key in keys { dict[key] = .string(key) }
        #expect(dict.keys == keys)
        for key in keys { #expect(dict[key] == .string(key)) }
        dict["key5"] = nil
        #expect(dict.count == 39 && dict["key5"] == nil && dict["key6"] == "key6")
    }

    @Test func keysCompareByExactBytesNotCanonicalEquivalence() {
        var dict = PlistDictionary()
        dict["\u{E9}"] = 1
        dict["e\u{301}"] = 2
        #expect(dict.count == 2)
        #expect(dict["\u{E9}"] == 1 && dict["e\u{301}"] == 2)
        #expect(PlistValue.string("\u{E9}") != .string("e\u{301}"))
    }

    @Test func equalityIgnoresKeyOrder() {
        let a: PlistValue = ["x": 1, "y": 2]
        let b: PlistValue = ["y": 2, "x": 1]
        #expect(a == b)
        #expect(a != ["x": 1, "y": 3])
    }

    @Test func realsCompareByBitsSoNaNEqualsItself() {
        #expect(PlistValue.real(.nan) == .real(.nan))
        #expect(PlistValue.real(0.0) != .real(-0.0))
        #expect(PlistValue.integer(PlistInteger(1)) != .real(1))
    }
}

@Suite struct PlistIntegerTests {
    @Test func parsesTheWholeRangeAndNothingBeyond() {
        #expect(PlistInteger("18446744073709551615")?.description == "18446744073709551615")
        #expect(PlistInteger("-9223372036854775808")?.int64 == Int64.min)
        #expect(PlistInteger("18446744073709551616") == nil)
        #expect(PlistInteger("-9223372036854775809") == nil)
        #expect(PlistInteger("0x10")?.int == 16)
        #expect(PlistInteger("+5")?.int == 5)
        #expect(PlistInteger("") == nil && PlistInteger("-") == nil && PlistInteger("1.0") == nil)
    }

    @Test func ordersSignedAndUnsignedValues() {
        #expect(PlistInteger(Int64.min) < PlistInteger(0))
        #expect(PlistInteger(Int64.max) < PlistInteger(UInt64.max))
    }
}
