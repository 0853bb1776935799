import Foundation
import NSEFuzzTargets

// `nse-fuzz TARGET [libFuzzer options] [corpus folders or files]` in the build `make fuzz` makes (FUZZING set,
// libFuzzer linked in); `nse-fuzz TARGET FILE...` replays files through the target in any other build.
//
// The binary keeps its own `main` and calls libFuzzer's driver rather than using `-sanitize=fuzzer`'s `main`:
// SwiftPM links every executable with `--defsym main=<module>_main`, which clashes with libFuzzer's own.

/// The target named by the first argument; a global because libFuzzer's C callback cannot capture it.
let selectedTarget = CommandLine.arguments.dropFirst().first.flatMap(FuzzTarget.init(rawValue:))

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
#endif

@main
enum NSEFuzz {
    static func main() {
        guard let target = selectedTarget else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("usage: nse-fuzz TARGET [libFuzzer options] [corpus...]; TARGET is one of \(names)\n".utf8))
            exit(2)
        }
        #if FUZZING
        // libFuzzer gets the arguments without the target's name, which it would take for a corpus file.
        var arguments: [UnsafeMutablePointer<CChar>?] = [CommandLine.unsafeArgv[0]]
        arguments += (2..<Int(CommandLine.argc)).map { CommandLine.unsafeArgv[$0] }
        arguments.append(nil)
        var argc = CInt(arguments.count - 1)
        let status = arguments.withUnsafeMutableBufferPointer { buffer in
            var argv = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                selectedTarget?.run(data.map { Data(bytes: $0, count: size) } ?? Data())
                return 0
            }
        }
        exit(status)
        #else
        for path in CommandLine.arguments.dropFirst(2) {
            guard let bytes = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                exit(2)
            }
            target.run(bytes)
            print("\(target.rawValue): \(path) ok")
        }
        #endif
    }
}
