import Foundation
import NSEKit

/// What a batch worker was doing, written as it happens so that it survives the worker's crash: a line
/// `S <index>` when a push starts and `D <index>` when its result is saved (indexes into the discovered inputs).
///
/// Each line is one write(2) to a file opened with O_APPEND: the kernel has it as soon as the call returns, so a
/// trap or a SIGKILL the next instant loses nothing already written.
final class CrashJournal: Sendable {
    private let descriptor: Int32

    init(file: URL) throws {
        descriptor = open(file.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw OutputFolderError(folder: file.deletingLastPathComponent()) }
    }

    deinit {
        close(descriptor)
    }

    func started(_ index: Int) {
        append("S \(index)\n")
    }

    func finished(_ index: Int) {
        append("D \(index)\n")
    }

    private func append(_ line: String) {
        var bytes = Array(line.utf8)
        // A lost line only widens the set of suspects the supervisor re-runs; there is nothing better to do.
        _ = bytes.withUnsafeMutableBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// The pushes that started and never finished, in the order they started: the suspects of a crash.
    static func unfinished(in file: URL) -> [Int] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        var order: [Int] = []
        var open = Set<Int>()
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let index = Int(fields[1]) else { continue }
            if fields[0] == "S", open.insert(index).inserted {
                order.append(index)
            } else if fields[0] == "D" {
                open.remove(index)
            }
        }
        return order.filter(open.contains)
    }
}
