import CLibCurl
import Foundation
import SystemSupport
import Testing

@testable import ObjectStorage

/// libcurl is looked up when the first request is sent: what a missing or wrong library says.
struct LibCurlTests {
    @Test func theSystemsLibcurlLoadsWithEveryFunctionTheClientCalls() throws {
        let curl = try LibCurl.loaded()
        let message = try #require(curl.easyStrerror(CURLE_OK))
        #expect(String(cString: message) == "No error")
    }

    @Test func aMissingLibraryIsAStorageErrorThatNamesItAndHowToInstallIt() throws {
        let failure = try #require(LibCurl.load("libcurl-not-installed.so.4").failureValue)
        #expect(failure.code == .storage(.httpClient))
        #expect(failure.file == "libcurl-not-installed.so.4")
        // dlerror's own words, without the file's name it starts with.
        #expect(failure.message.hasPrefix("the HTTP client cannot be loaded: cannot open shared object file"))
        #expect(failure.hint?.contains("libcurl4") == true)
    }

    @Test func aLibraryWithoutLibcurlsFunctionsIsRefusedNamingWhatItLacks() throws {
        let failure = try #require(LibCurl.load("libz.so.1").failureValue)
        #expect(failure.file == "libz.so.1")
        #expect(failure.message.contains("it has no curl_global_init, curl_easy_init"))
        #expect(failure.message.hasSuffix("curl_easy_setopt"))
    }
}

extension Result {
    fileprivate var failureValue: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
