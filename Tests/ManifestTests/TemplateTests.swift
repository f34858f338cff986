import Foundation
import Manifest
import SystemSupport
import TestSupport
import Testing

@Suite struct TemplateTests {
    func render(_ source: String, _ context: TemplateValue, partials: [String: String] = [:]) throws -> String {
        let partialTemplates = try partials.mapValues { try Template(name: "partial", source: $0) }
        return try Template(name: "test", source: source).render(context, partials: partialTemplates)
    }

    @Test func variablesAreEscapedUnlessAskedForRaw() throws {
        let context: TemplateValue = ["name": "<b>\"Shout\" & 'Out'</b>", "nested": ["value": "deep"]]
        #expect(try render("{{name}}", context) == "&lt;b&gt;&quot;Shout&quot; &amp; &#39;Out&#39;&lt;/b&gt;")
        #expect(try render("{{{name}}}|{{& name}}", context) == "<b>\"Shout\" & 'Out'</b>|<b>\"Shout\" & 'Out'</b>")
        #expect(try render("{{nested.value}} {{missing}}!", context) == "deep !")
    }

    @Test func sectionsRepeatForListsAndShowForTruthyValues() throws {
        let context: TemplateValue = ["items": [["n": "a"], ["n": "b"]], "on": true, "off": false, "empty": "", "names": ["x", "y"]]
        #expect(try render("{{#items}}[{{n}}]{{/items}}", context) == "[a][b]")
        #expect(
            try render("{{#on}}yes{{/on}}{{#off}}no{{/off}}{{^off}}not off{{/off}}{{^empty}} empty{{/empty}}", context)
                == "yesnot off empty")
        #expect(try render("{{#names}}{{.}};{{/names}}", context) == "x;y;")
        #expect(try render("{{#items}}{{#on}}{{n}}{{/on}}{{/items}}", context) == "ab")
    }

    @Test func partialsAndCommentsWork() throws {
        #expect(try render("{{! ignored }}A{{> part}}C", ["b": "B"], partials: ["part": "{{b}}"]) == "ABC")
    }

    @Test func mistakesNameTheTemplateAndLine() {
        #expect(throws: Diagnostic.manifest(.template, "test:2: section 'items' is never closed")) {
            try Template(name: "test", source: "ok\n{{#items}}\nno end")
        }
        #expect(throws: Diagnostic.manifest(.template, "test:1: '{{/b}}' closes 'a', opened on line 1")) {
            try Template(name: "test", source: "{{#a}}{{/b}}")
        }
        #expect(throws: Diagnostic.manifest(.template, "test:3: unclosed tag")) { try Template(name: "test", source: "\n\n{{oops") }
        #expect(throws: Diagnostic.manifest(.template, "test: no partial named 'nope'")) { try render("{{> nope}}", [:]) }
        expectDiagnostic(ManifestProblem.self) { try render("{{> loop}}", [:], partials: ["loop": "{{> loop}}"]) }
    }

    @Test func theBuiltInTemplatesMatchTheTemplatesFolder() throws {
        let python = try #require(ProcessResult.which("python3"))
        let check = try ProcessResult.run(
            python, [Fixtures.packageRoot.appendingPathComponent("scripts/embed-templates.py").path, "--check"])
        #expect(check.status == 0, "Sources/Manifest/DefaultTemplates.swift is stale: run scripts/embed-templates.py")
        let set = try TemplateSet()
        #expect(
            Set(set.templates.keys) == [
                "page", "index", "style", "index-style", "device-script", "enroll", "enroll-style", "thanks", "thanks-script"
            ])
    }

    @Test func aTeamsTemplatesReplaceTheBuiltInOnes() throws {
        try withTemporaryFolder { folder in
            _ = try folder.write("page.mustache", "<p>{{appName}}</p>{{> style}}")
            _ = try folder.write("style.mustache", "/* team style */")
            let set = try TemplateSet(folder: folder.url.path)
            #expect(try set.render("page", ["appName": "ShoutOut"]) == "<p>ShoutOut</p>/* team style */")
            _ = try folder.write("index.mustache", "{{#broken}}")
            #expect(throws: Diagnostic.manifest(.template, "\(folder.path("index.mustache")):1: section 'broken' is never closed")) {
                try TemplateSet(folder: folder.url.path)
            }
        }
    }

    /// Found by the template fuzzer: a tag whose name is empty or only dots crashed the lookup.
    @Test(arguments: [
        ("{{&  }}", "a tag without a name"), ("{{{ }}}", "a tag without a name"),
        ("{{#}}{{/}}", "a tag without a name"), ("{{..}}", "'..' is not a tag name (names joined by single dots)"),
        ("{{a..b}}", "'a..b' is not a tag name (names joined by single dots)"),
        ("{{a b}}", "'a b' is not a tag name (names joined by single dots)")
    ])
    func tagsWithoutAUsableNameAreErrors(source: String, message: String) throws {
        #expect(throws: Diagnostic.manifest(.template, "test:2: \(message)")) { try Template(name: "test", source: "x\n" + source) }
    }

    @Test func theFuzzerFindingRendersNothingAndThrowsNothingElse() throws {
        let input = try Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("Fuzz/Regressions/template/empty-tag-name"))
        #expect(throws: Diagnostic.manifest(.template, "fuzz:2: a tag without a name")) {
            try Template(name: "fuzz", source: String(decoding: input, as: UTF8.self))
        }
    }
}

@Suite struct URLEncodingTests {
    @Test func aBaseURLIsKeptByteForByteApartFromATrailingSlashAndNonASCII() throws {
        #expect(try URLEncoding.baseURL("https://builds.example.com/app") == "https://builds.example.com/app/")
        // TeamCity locators, escapes already made, and the sub-delimiters a path may hold stay as given.
        let teamCity = "https://ci.example.com/repository/download/App_Staging/123:id/release%20candidate/"
        #expect(try URLEncoding.baseURL(teamCity) == teamCity)
        #expect(
            try URLEncoding.baseURL("https://user@h.example:8443/~me/a+b/@team/x&y/'q'/%2F/")
                == "https://user@h.example:8443/~me/a+b/@team/x&y/'q'/%2F/")
        // Bytes outside ASCII become their UTF-8 escapes (what a browser sends for them).
        #expect(try URLEncoding.baseURL("https://h.example/caf\u{E9}/\u{1F680}") == "https://h.example/caf%C3%A9/%F0%9F%9A%80/")
        #expect(try URLEncoding.baseURL("  https://h.example/x/\n") == "https://h.example/x/")
        #expect(try URLEncoding.baseURL("http://x.example/", allowHTTP: true) == "http://x.example/")
        #expect(try URLEncoding.baseURL("https://[::1]:8443/x/") == "https://[::1]:8443/x/")
        #expect(try URLEncoding.baseURL("https://[2001:db8::1]/x") == "https://[2001:db8::1]/x/")
    }

    @Test func aBaseURLThatCannotTakeFileNamesIsAClearError() {
        let cases: [(String, String)] = [
            ("builds.example.com/app", "is not an absolute URL (like https://builds.example.com/app/)"),
            ("ftp://builds.example.com/", "must use https, not ftp"),
            ("https:///app/", "has no host"),
            ("https://user@:8443/app/", "has no host"),
            ("https://h.example:abc/app/", "has a port that is not a number from 1 to 65535 (':abc')"),
            ("https://h.example:99999/app/", "has a port that is not a number from 1 to 65535 (':99999')"),
            ("https://h.example:/app/", "has a port that is not a number from 1 to 65535 (':')"),
            ("https://[::1/app/", "has an IPv6 address without its closing ']'"),
            ("https://h.example/release candidate/", "contains a space; write it as %20"),
            ("https://h.example/a\tb/", "contains a control character"),
            (
                "https://h.example/download?build=12",
                "has a query ('?…'), which would come before every file name joined to it; "
                    + "give the folder the files are served from"
            ),
            (
                "https://h.example/app/#latest",
                "has a fragment ('#…'), which would come before every file name joined to it; "
                    + "give the folder the files are served from"
            ),
            ("https://h.example/100%/", "has a '%' that is not followed by two hex digits; write a literal % as %25"),
            ("https://h.example/%zz/", "has a '%' that is not followed by two hex digits; write a literal % as %25"),
            ("https://h.example/\"q\"/", "contains '\"', which a URL cannot hold; percent-encode it"),
            ("https://h.example/<b>/", "contains '<', which a URL cannot hold; percent-encode it"),
            (
                "http://x.example/",
                "uses http; iOS 7.1 and later refuse to install from a manifest served over http "
                    + "(use https, or --allow-http for a test setup)"
            )
        ]
        for (url, problem) in cases {
            #expect(throws: Diagnostic.manifest(.baseURL, "base URL '\(url)' \(problem)")) { try URLEncoding.baseURL(url) }
        }
    }

    @Test func appendedNamesAreEncodedAsOneSegmentEach() {
        #expect(
            URLEncoding.join("https://h.example/123:id/", segments: ["QA+@:~\u{E9}", "1.0 %20/x"])
                == "https://h.example/123:id/QA%2B%40%3A~%C3%A9/1.0%20%2520%2Fx")
    }

    @Test func theInstallLinkCarriesTheManifestURLAsOneQueryValue() {
        let manifest = URLEncoding.join("https://h.example/a%20b/", "manifest.plist")
        #expect(manifest == "https://h.example/a%20b/manifest.plist")
        #expect(
            URLEncoding.installLink(manifestURL: manifest)
                == "itms-services://?action=download-manifest&url=https%3A%2F%2Fh.example%2Fa%2520b%2Fmanifest.plist")
        #expect(URLEncoding.join("https://h.example/", "My App #2.ipa") == "https://h.example/My%20App%20%232.ipa")
    }
}

@Suite struct ReleaseNotesTests {
    @Test func plainTextBecomesParagraphsListsAndLinksWithEverythingEscaped() {
        let html = ReleaseNotes.html(
            "Hello <b>team</b>\nsecond line\n\n- one & two\n* <script>x</script>\n\nSee https://e.example/a?b=1&c=\"2\".")
        #expect(
            html == """
                <p>Hello &lt;b&gt;team&lt;/b&gt;<br>second line</p>
                <ul><li>one &amp; two</li><li>&lt;script&gt;x&lt;/script&gt;</li></ul>
                <p>See <a href="https://e.example/a?b=1&amp;c=" rel="noopener noreferrer">https://e.example/a?b=1&amp;c=</a>&quot;2&quot;.</p>
                """)
    }
}
