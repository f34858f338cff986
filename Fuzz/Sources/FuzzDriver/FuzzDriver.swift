import Foundation

// swift-format-ignore: AlwaysUseLowerCamelCase
// libFuzzer's own entry point, so it keeps libFuzzer's name.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

nonisolated(unsafe) private var harness: ((Data) -> Void)?

/// Hands control to libFuzzer (linked without its own `main`), calling `body` with each input.
public func runFuzzer(_ body: @escaping (Data) -> Void) -> Never {
    harness = body
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        harness?(data.map { Data(bytes: $0, count: size) } ?? Data())
        return 0
    }
    exit(status)
}
