import Foundation
import NSEMedia
import NSEReports

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
        // Written a megabyte at a time, not a write per piece of every result.
        var pending: [UInt8] = []
        func flush(atLeast bytes: Int) throws {
            guard pending.count >= bytes else { return }
            try handle.write(contentsOf: pending)
            pending.removeAll(keepingCapacity: true)
        }

        pending.append(contentsOf: "{\n  \"interrupted\" : \(summary.interrupted),\n  \"results\" : [".utf8)
        var first = true
        for span in spans {
            guard let span else { continue }
            pending.append(contentsOf: (first ? "\n" : ",\n").utf8)
            first = false
            indent(try workspace.spooledResult(span), by: 4, into: &pending)
            try flush(atLeast: 1 << 20)
        }
        pending.append(contentsOf: (first ? "],\n" : "\n  ],\n").utf8)
        pending.append(contentsOf: "  \"summary\" : ".utf8)
        indent(JSONResultRenderer().encode(summary), by: 2, skippingFirstLine: true, into: &pending)
        pending.append(contentsOf: "\n}\n".utf8)
        try flush(atLeast: 0)
        try handle.synchronize()
        try AtomicFile.move(temporary, to: file)
    }

    /// Appends `json` with `spaces` spaces at the start of each line (but the first when `skippingFirstLine`).
    ///
    /// On bytes, not Characters: in UTF-8 a line break is the byte 0x0A and never part of another character, and
    /// splitting a String into lines walks every grapheme of every result, at the end of the batch, with the other
    /// core idle.
    static func indent(_ json: Data, by spaces: Int, skippingFirstLine: Bool = false, into out: inout [UInt8]) {
        let pad = repeatElement(UInt8(ascii: " "), count: spaces)
        if !skippingFirstLine { out.append(contentsOf: pad) }
        json.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var lineStart = 0
            while let newline = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
                out.append(contentsOf: bytes[lineStart...newline])
                out.append(contentsOf: pad)
                lineStart = newline + 1
            }
            out.append(contentsOf: bytes[lineStart...])
        }
    }
}
