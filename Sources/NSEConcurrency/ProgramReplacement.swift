import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs another program in this process's place (`execv`): the same process ID, so a signal sent to this
/// process reaches that program, and the same standard input, output, error and environment.
public enum ProgramReplacement {
    /// Returns only by throwing, when `executable` could not be started.
    public static func exec(_ executable: String, _ arguments: [String]) throws(ChildProcessError) -> Never {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let code = argv.withUnsafeBufferPointer { argvPointer in
            // Returns only when it failed, with the reason in errno.
            execv(executable, argvPointer.baseAddress!)
            return errno
        }
        throw ChildProcessError("cannot start \(executable)", code)
    }
}
