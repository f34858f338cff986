import CLibCurl
import Foundation
import SystemSupport

/// One libcurl easy handle, used by one request at a time (``HTTPClient`` keeps a pool of them);
/// its connections stay open between requests.
final class CurlHandle: @unchecked Sendable {
    private let curl: LibCurl
    private let handle: UnsafeMutableRawPointer

    /// A new handle; throws when libcurl cannot be loaded (``LibCurl``).
    init() throws {
        curl = try LibCurl.loaded()
        // curl_easy_init fails only when it cannot allocate.
        guard let handle = curl.easyInit() else { preconditionFailure("libcurl could not allocate a handle") }
        self.handle = handle
    }

    deinit { curl.easyCleanup(handle) }

    func perform(_ request: HTTPRequest, options: HTTPClient.Options) throws -> HTTPClient.Outcome {
        curl.easyReset(handle)
        let transfer = CurlTransfer(request, maxMemoryBody: options.maxMemoryBody)
        try transfer.open()
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl.slistFreeAll(headerList) }
        var extra = request.headers.map { "\($0.name): \($0.value)" }
        // No `Expect: 100-continue` round trip, and no form content type curl would add to a POST.
        extra.append("Expect:")
        if request.method == "POST" && !request.headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            extra.append("Content-Type:")
        }
        for line in extra { headerList = curl.slistAppend(headerList, line) }

        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            set(CURLOPT_URL, request.url)
            set(CURLOPT_PROTOCOLS_STR, "http,https")
            set(CURLOPT_NOSIGNAL, 1)
            set(CURLOPT_FOLLOWLOCATION, 0)
            set(CURLOPT_CONNECTTIMEOUT_MS, Int(options.connectTimeout * 1000))
            set(CURLOPT_LOW_SPEED_LIMIT, 1)
            set(CURLOPT_LOW_SPEED_TIME, max(1, Int(options.stallTimeout)))
            set(CURLOPT_HTTPHEADER, list: headerList)
            set(CURLOPT_ERRORBUFFER, pointer: errors.baseAddress)
            set(CURLOPT_HEADERFUNCTION, callback: curlHeader)
            set(CURLOPT_HEADERDATA, pointer: context)
            set(CURLOPT_WRITEFUNCTION, callback: curlWrite)
            set(CURLOPT_WRITEDATA, pointer: context)
            setMethod(request)
            if request.method == "PUT" || request.method == "POST" {
                set(CURLOPT_READFUNCTION, callback: curlRead)
                set(CURLOPT_READDATA, pointer: context)
            }
            return curl.easyPerform(handle)
        }
        if let failure = transfer.failure { throw failure }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let reason = detail.isEmpty ? curl.easyStrerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)" : detail
            let diagnostic = Diagnostic.storage(
                .transport, Self.scrub(reason, of: request.url), subject: "\(request.method) \(request.redactedURL)")
            if Self.retryable.contains(code) { return .unanswered(diagnostic) }
            throw diagnostic
        }
        try transfer.finishOutput()
        return .answered(HTTPResponse(status: transfer.status, headers: transfer.headers, body: transfer.body))
    }

    /// The failures another attempt may get past.
    private static let retryable: Set<UInt32> = [
        CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_OPERATION_TIMEDOUT, CURLE_SEND_ERROR, CURLE_RECV_ERROR,
        CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SSL_CONNECT_ERROR
    ].map(\.rawValue).reduce(into: []) { $0.insert($1) }

    /// `text` without the URL's query, should libcurl ever quote it.
    static func scrub(_ text: String, of url: String) -> String {
        guard let start = url.firstIndex(where: { $0 == "?" }) else { return text }
        return text.replacingOccurrences(of: String(url[start...]), with: "?…")
    }

    private func setMethod(_ request: HTTPRequest) {
        switch request.method {
        case "GET": set(CURLOPT_HTTPGET, 1)
        case "HEAD": set(CURLOPT_NOBODY, 1)
        case "PUT":
            set(CURLOPT_UPLOAD, 1)
            set(CURLOPT_INFILESIZE_LARGE, offset: curl_off_t(request.body.length))
        case "POST":
            set(CURLOPT_POST, 1)
            set(CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(request.body.length))
        default: set(CURLOPT_CUSTOMREQUEST, request.method)
        }
    }

    // curl_easy_setopt by argument type, through the shim (it is variadic).
    private func set(_ option: CURLoption, _ value: Int) { _ = shim_curl_easy_setopt_long(curl.easySetopt, handle, option, value) }
    private func set(_ option: CURLoption, _ value: String) { _ = shim_curl_easy_setopt_string(curl.easySetopt, handle, option, value) }
    private func set(_ option: CURLoption, offset: curl_off_t) {
        _ = shim_curl_easy_setopt_offset(curl.easySetopt, handle, option, offset)
    }
    private func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) {
        _ = shim_curl_easy_setopt_pointer(curl.easySetopt, handle, option, pointer)
    }
    private func set(_ option: CURLoption, list: UnsafeMutablePointer<curl_slist>?) {
        _ = shim_curl_easy_setopt_slist(curl.easySetopt, handle, option, list)
    }
    private func set(_ option: CURLoption, callback: shim_curl_data_callback) {
        _ = shim_curl_easy_setopt_callback(curl.easySetopt, handle, option, callback)
    }
}

extension Set where Element == UInt32 {
    func contains(_ code: CURLcode) -> Bool { contains(code.rawValue) }
}

private func transfer(_ context: UnsafeMutableRawPointer?) -> CurlTransfer {
    Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
}

private let curlHeader: shim_curl_data_callback = { buffer, size, count, context in
    transfer(context).header(buffer!, count: size * count)
}

private let curlWrite: shim_curl_data_callback = { buffer, size, count, context in
    transfer(context).write(buffer!, count: size * count)
}

private let curlRead: shim_curl_data_callback = { buffer, size, count, context in
    transfer(context).read(into: buffer!, capacity: size * count)
}
