import Foundation
import NSEMedia
import NSEPipeline
import NSEPush

/// Turns results into text for a person or a program. A new output (HTML, JUnit...) is a new renderer.
public protocol ResultRenderer: Sendable {
    func render(_ result: ProcessResult) -> String
}

/// The stable JSON form documented in the README: pretty-printed, keys sorted.
public struct JSONResultRenderer: ResultRenderer {
    public init() {}

    public func render(_ result: ProcessResult) -> String {
        String(decoding: encode(result), as: UTF8.self)
    }

    /// What `JSONEncoder` writes with `[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]`, byte for byte
    /// (`SortedJSONEncoder`).
    public func encode<Value: Encodable>(_ value: Value) -> Data {
        // The result types hold only strings, numbers, booleans and containers: encoding cannot fail.
        (try? SortedJSONEncoder(prettyPrinted: true).encode(value)) ?? Data()
    }
}

/// A short report for a terminal: the verdict, what the phone shows, and every finding with its code.
public struct TextResultRenderer: ResultRenderer {
    public init() {}

    /// One line after several pushes: how many pass, fail and were not checked, and how many images show.
    public func totals(_ summary: BatchSummary) -> String {
        var line = "\(counted(summary.processed, "push", plural: "pushes")): \(summary.passed) pass, \(summary.failed) fail"
        if summary.unreadable > 0 { line += ", \(summary.unreadable) not checked" }
        if summary.warnings > 0 { line += " (\(counted(summary.warnings, "warning")))" }
        line += "; \(summary.imagesShown) of the \(counted(summary.imagesRequested, "image")) asked for would show"
        return line
    }

    public func render(_ result: ProcessResult) -> String {
        var lines: [String] = []
        let kind = result.inputKind.map { " (\($0.rawValue))" } ?? ""
        lines.append("\(result.input)\(kind)")
        lines.append("  \(result.headline.line)")
        // Firebase's helper by default was nse's only behaviour before `--sdk`: its line would only repeat that.
        let namesHelper = result.helper.map { !$0.isFirebaseByDefault } ?? false
        if let helper = result.helper, namesHelper {
            lines.append("  helper   \(helper.sdk.displayName) (\(helper.selection.rawValue): \(helper.reason))")
        }
        if let content = result.content, content.title.isEmpty, content.subtitle.isEmpty, content.body.isEmpty {
            lines.append("  the phone shows no alert")
        } else if let content = result.content {
            lines.append("  the phone shows:")
            let rows = [("title", content.title, content.titleLocalization), ("subtitle", content.subtitle, content.subtitleLocalization), ("body", content.body, content.bodyLocalization)]
            for (label, value, localization) in rows where !value.isEmpty {
                let text = localization.map(localized) ?? quoted(value)
                lines.append("    \(label.padding(toLength: 9, withPad: " ", startingAt: 0))\(text)")
            }
            if let badge = content.badge { lines.append("    badge    \(badge)") }
            if namesHelper, !content.categoryIdentifier.isEmpty { lines.append("    category \(quoted(content.categoryIdentifier))") }
            if let communication = content.communication { lines.append("    sender   \(sender(communication))") }
            for attachment in content.attachments {
                var description = "    image    \(attachment.type)"
                if let width = attachment.width, let height = attachment.height { description += " \(width)x\(height)" }
                if let frames = attachment.frames, frames > 1 { description += ", \(frames) frames" }
                description += ", \(attachment.bytes) bytes"
                if let file = attachment.file { description += " -> \(file)" }
                lines.append(description)
            }
        }
        for diagnostic in result.diagnostics {
            lines.append("  \(diagnostic.severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))\(diagnostic.code.rawValue): \(diagnostic.message)")
        }
        if let activity = result.extensionActivity {
            lines += activityLines(activity)
        }
        if let android = result.android {
            lines += androidLines(android)
        }
        if let total = result.timings["total"] {
            lines.append("  took \(Int(saturating: total.rounded())) ms")
        }
        return lines.joined(separator: "\n")
    }

    /// A communication notification's sender, avatar and conversation, as the phone presents them.
    private func sender(_ communication: Communication) -> String {
        var text = communication.senderName.map(quoted) ?? "(no name)"
        if let avatar = communication.avatar {
            text += ", avatar \(avatar.width)x\(avatar.height) in place of the app icon"
        } else {
            text += ", no avatar (initials shown)"
        }
        if let group = communication.groupName { text += ", in group \(quoted(group))" }
        return text
    }

    /// A line from the app's strings: its key and arguments, since the emulator does not have the strings.
    private func localized(_ localization: NotificationContent.Localization) -> String {
        let arguments = localization.arguments.isEmpty ? "" : " with " + localization.arguments.map(quoted).joined(separator: ", ")
        return "the app's string for \(quoted(localization.key))\(arguments)"
    }

    /// Log lines shown before the rest are summarised: a chatty extension must not bury the verdict.
    static let shownLogLines = 20

    /// What an app's own extension did, in the order a reader checks it: its requests, log, handler calls, memory.
    private func activityLines(_ activity: ExtensionActivity) -> [String] {
        var lines = ["  the extension:"]
        for request in activity.requests {
            var outcome: String
            switch request.outcome {
            case .completed: outcome = "\(request.status.map(String.init) ?? "?"), \(request.bytes) bytes"
            case .failed: outcome = "failed, \(request.error ?? "no response")"
            case .cancelled: outcome = "cancelled"
            case .unfinished: outcome = "unfinished when the extension ended"
            }
            if request.redirects > 0 { outcome += ", \(request.redirects) redirects" }
            let code = request.diagnostic.map { " [\($0.rawValue)]" } ?? ""
            lines.append("    request  \(request.method) \(request.url) -> \(outcome) in \(Int(saturating: request.milliseconds.rounded())) ms (\(request.api))\(code)")
        }
        for line in activity.log.prefix(Self.shownLogLines) {
            let origin = [line.subsystem, line.category].compactMap { $0 }.joined(separator: "/")
            lines.append("    log      [\(line.level.rawValue)]\(origin.isEmpty ? "" : " " + origin): \(line.message.replacingOccurrences(of: "\n", with: "\\n"))")
        }
        if activity.log.count > Self.shownLogLines {
            lines.append("    log      ... \(activity.log.count - Self.shownLogLines) more lines (--format json has them all)")
        }
        let calls = activity.handlerCalls.map { call in
            "\(Int(saturating: call.milliseconds.rounded())) ms from \(call.thread)\(call.used ? " (shown)" : " (ignored)")"
        }
        lines.append("    handler  " + (calls.isEmpty ? "never called" : calls.joined(separator: "; ")))
        if let memory = activity.memory {
            var text = "    memory   held by the stand-ins at most \(memory.accountedPeakBytes) bytes; process "
            switch memory.processMeasurement {
            case .measured: text += "grew \(memory.processGrowthBytes ?? 0) bytes"
            case .notMeasuredConcurrentRuns: text += "not measured (other runs overlapped)"
            case .off: text += "not measured"
            case .unsupported: text += "not measured (no peak memory on this system)"
            }
            lines.append(text)
        }
        return lines
    }

    private func androidLines(_ android: AndroidResult) -> [String] {
        var lines = ["  Android (app in the background):"]
        if android.diagnostics.contains(where: { $0.code == .androidNotFCM }) {
            lines[0] = "  Android: not applicable"
        } else if let notification = android.notification {
            let verdict = android.imageShown ? "OK: notification shown with its image"
                : android.imageURL == nil ? "OK: notification shown (no image requested)"
                : "FAIL: notification shown WITHOUT its image"
            lines.append("    \(verdict)")
            for key in ["title", "body"] {
                if let value = notification[key]?.stringValue { lines.append("      \(key.padding(toLength: 9, withPad: " ", startingAt: 0))\(quoted(value))") }
            }
            if let image = android.image {
                var description = "      image    \(image.format.rawValue)"
                if let width = image.width, let height = image.height { description += " \(width)x\(height)" }
                description += ", \(image.bytes) bytes"
                lines.append(description)
            }
        } else {
            lines.append("    data-only: no notification is shown")
        }
        lines += android.diagnostics.map { "  " + $0.textLine }
        return lines
    }

    private func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
