import Foundation

/// Writes `report.json`: `{"interrupted": ..., "results": [every result, in input order], "summary": {...}}`.
///
/// Results are copied one at a time from the batch's spool, so writing the report takes no more memory for
/// ten thousand pushes than for ten. The file appears complete or not at all (temporary file, then rename).
enum BatchReportFile {
    static func write(summary: BatchSummary, spans: [Range<UInt64>?], from workspace: ResultWorkspace, to file: URL) throws {
        let temporary = workspace.root.appending(path: "report.json")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        let handle = try FileHandle(forWritingTo: temporary)
        defer { try? handle.close() }
        func emit(_ text: String) throws { try handle.write(contentsOf: Data(text.utf8)) }

        try emit("{\n  \"interrupted\" : \(summary.interrupted),\n  \"results\" : [")
        var first = true
        for span in spans {
            guard let span else { continue }
            let json = try workspace.spooledResult(span)
            try emit(first ? "\n" : ",\n")
            first = false
            try emit(indented(String(decoding: json, as: UTF8.self), by: 4))
        }
        try emit(first ? "],\n" : "\n  ],\n")
        try emit("  \"summary\" : " + indented(String(decoding: JSONResultRenderer().encode(summary), as: UTF8.self), by: 2, skippingFirstLine: true))
        try emit("\n}\n")
        try handle.synchronize()
        try AtomicFile.move(temporary, to: file)
    }

    private static func indented(_ text: String, by spaces: Int, skippingFirstLine: Bool = false) -> String {
        let pad = String(repeating: " ", count: spaces)
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { index, line in
            index == 0 && skippingFirstLine ? String(line) : pad + line
        }.joined(separator: "\n")
    }
}
