import Foundation
import NSEMedia
import NSEPipeline
import NSEPush

/// The visual report: one self-contained HTML file (inline CSS and script, images as data: URIs, nothing
/// fetched) with a card per push drawn as iOS draws the notification, failures first.
///
/// For tools that read it: every card is an `<article class="card">` with `data-push` (the input path, as in
/// `report.json`), `data-outcome`, `data-status` (`pass`, `fail`, `error`) and `data-codes` (its warning and
/// error codes, space-separated).
package struct HTMLReportRenderer: Sendable {
    /// The name above each notification, as iOS shows the app's display name.
    package var appName: String
    /// The page's title and heading.
    package var title: String

    package init(appName: String = "App", title: String = "nse report") {
        self.appName = appName
        self.title = title
    }

    /// The whole page for cards already rendered (`card(_:)`) and put in order (`HTMLReportRenderer.order`).
    package func document(summary: BatchSummary, strict: Bool, cards: [String], codes: [String]) -> String {
        head(summary: summary, strict: strict, codes: codes) + cards.joined() + tail
    }

    /// Failures (and unreadable inputs) first, each group in input order.
    package static func order<Item>(_ items: [(index: Int, exitStatus: Int32, item: Item)]) -> [Item] {
        items.sorted { ($0.exitStatus == 0 ? 1 : 0, $0.index) < ($1.exitStatus == 0 ? 1 : 0, $1.index) }.map(\.item)
    }

    /// Everything before the cards: styles, the summary and the filters.
    package func head(summary: BatchSummary, strict: Bool, codes: [String]) -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(escape(title))</title>
            <style>\(Self.style)</style>
            </head>
            <body>
            <header class="top">
            <h1>\(escape(title))</h1>

            """
        html += summarySection(summary, strict: strict)
        html += filters(summary: summary, codes: codes)
        html += "</header>\n<main class=\"cards\">\n"
        return html
    }

    package var tail: String {
        "</main>\n<p class=\"empty\" id=\"none\" hidden>No push matches these filters.</p>\n<script>\(Self.script)</script>\n</body>\n</html>\n"
    }

    private func summarySection(_ summary: BatchSummary, strict: Bool) -> String {
        var parts: [String] = []
        func figure(_ value: Int, _ label: String, _ kind: String) {
            parts.append("<div class=\"figure \(kind)\"><b>\(value)</b><span>\(label)</span></div>")
        }
        figure(summary.payloads, summary.payloads == 1 ? "push" : "pushes", "all")
        figure(summary.failed, "failed", summary.failed > 0 ? "fail" : "muted")
        figure(summary.unreadable, "unreadable", summary.unreadable > 0 ? "error" : "muted")
        figure(summary.passed, "passed", "pass")
        figure(summary.warnings, summary.warnings == 1 ? "warning" : "warnings", summary.warnings > 0 ? "warn" : "muted")
        var notes = ["images: \(summary.imagesShown) of the \(summary.imagesRequested) requested would show"]
        if strict { notes.append("--strict: warnings fail") }
        if summary.interrupted { notes.append("INTERRUPTED: \(summary.notRun) not run") }
        return "<section class=\"summary\">\(parts.joined())</section>\n<p class=\"notes\">\(notes.map(escape).joined(separator: " · "))</p>\n"
    }

    private func filters(summary: BatchSummary, codes: [String]) -> String {
        let outcomes = summary.outcomes.keys.sorted().map { "<option value=\"\(escape($0))\">\(escape($0)) (\(summary.outcomes[$0] ?? 0))</option>" }
        let codeOptions = codes.map { "<option value=\"\(escape($0))\">\(escape($0))</option>" }
        return """
            <form class="filters" onsubmit="return false">
            <label>Status <select id="f-status"><option value="">all</option><option value="fail">failed</option><option value="error">unreadable</option><option value="pass">passed</option></select></label>
            <label>Outcome <select id="f-outcome"><option value="">all</option>\(outcomes.joined())</select></label>
            <label>Code <select id="f-code"><option value="">all</option>\(codeOptions.joined())</select></label>
            <output id="f-count"></output>
            </form>

            """
    }

    /// One push: the verdict, the collapsed notification, the expanded one with the whole image, the findings.
    package func card(_ card: ReportCard) -> String {
        let result = card.result
        let status = switch card.exitStatus {
        case 0: "pass"
        case 1: "fail"
        default: "error"
        }
        let codes = Self.codes(of: result)
        var html = "<article class=\"card \(status)\" data-push=\"\(escape(result.input))\" data-outcome=\"\(escape(result.outcome.rawValue))\" data-status=\"\(status)\" data-codes=\"\(escape(codes.joined(separator: " ")))\">\n"
        html += "<div class=\"verdict\"><span class=\"badge \(status)\">\(status == "pass" ? "PASS" : status == "fail" ? "FAIL" : "ERROR")</span>"
        html += "<span class=\"outcome\">\(escape(result.outcome.rawValue))</span></div>\n"
        html += "<p class=\"path\">\(escape(result.input))</p>\n"
        html += "<p class=\"words\">\(escape(Self.plainWords(result)))</p>\n"
        // As in the text report: Firebase's helper by default (nse's behaviour before `--sdk`) is not repeated.
        if let helper = result.helper, !helper.isFirebaseByDefault {
            html += "<p class=\"helper\" data-sdk=\"\(escape(helper.sdk.rawValue))\">\(escape("\(helper.sdk.displayName)'s helper (\(helper.selection.rawValue): \(helper.reason))"))</p>\n"
        }
        if let content = result.content {
            html += notification(content, card: card)
        } else if result.outcome == .notEmulated, result.android?.notification != nil {
            // `--platform android`: the Android notification below is the card's drawing.
        } else {
            let words = switch result.outcome {
            case .notEmulated: "The iOS side was not emulated."
            case .notDisplayed: "No notification: the push is not for Notification Center."
            default: "Nothing reaches the phone."
            }
            html += "<div class=\"nothing\">\(words)</div>\n"
        }
        if let android = result.android {
            html += "<p class=\"android\">\(escape(Self.androidWords(android)))</p>\n"
            if android.notification != nil { html += androidNotification(android, previews: card.android) }
        }
        html += findings(result.verdictDiagnostics)
        html += "</article>\n"
        return html
    }

    /// The notification as the phone draws it, collapsed (with the thumbnail) and expanded (with the whole image):
    /// the report's cards and `nse serve`'s phones page (which gives the content the phone shows) draw it here.
    package func notification(_ content: NotificationContent, card: ReportCard) -> String {
        let hasText = !(content.title.isEmpty && content.subtitle.isEmpty && content.body.isEmpty)
        var html = "<div class=\"view\"><h2>Collapsed</h2>\n<div class=\"banner\">\n"
        html += "<div class=\"app\"><span class=\"icon\"></span><span class=\"name\">\(escape(appName))</span><span class=\"when\">now</span></div>\n"
        html += "<div class=\"row\"><div class=\"text\">"
        html += textLines(content, hasText: hasText)
        html += "</div>"
        if let thumbnail = card.thumbnail {
            html += "<img class=\"thumb\" alt=\"thumbnail\" width=\"\(thumbnail.width)\" height=\"\(thumbnail.height)\" src=\"\(thumbnail.dataURI)\">"
        }
        html += "</div>\n</div>\n"
        html += imageNote(content, card: card)
        html += "</div>\n"
        guard let image = card.image else { return html }
        html += "<div class=\"view\"><h2>Expanded</h2>\n<div class=\"banner expanded\">\n"
        html += "<img class=\"full\" alt=\"attachment\" width=\"\(image.width)\" height=\"\(image.height)\" src=\"\(image.dataURI)\">\n"
        html += "<div class=\"text\">\(textLines(content, hasText: hasText))</div>\n</div>\n</div>\n"
        return html
    }

    /// The Android notification as the shade draws the one the FCM SDK posts (firebase-android-sdk,
    /// firebase-messaging's `DisplayNotification.waitForAndApplyImageDownload`): collapsed, the image is the large
    /// icon on the right (`setLargeIcon`); expanded, `BigPictureStyle` shows it the notification's width below the
    /// text, the large icon gone (`bigLargeIcon(null)`), as Android's "Create an expandable notification" describes.
    /// The big picture is centre-cropped (AOSP `notification_template_material_big_picture.xml`: `centerCrop`) to at
    /// most 180 px high (`.picture`): how tall Android lets it be varies with the version and the text, so that
    /// height is an assumption (docs/cli.md, "Visual report").
    /// `previews`: the image's (`ReportCard.androidPreviews`); no image is drawn when the notification shows none.
    /// The report's cards and `nse serve`'s phones page draw it here.
    package func androidNotification(_ android: AndroidResult, previews: ReportCard.Previews?) -> String {
        let title = android.notification?["title"]?.stringValue ?? ""
        let body = android.notification?["body"]?.stringValue ?? ""
        var text = ""
        if !title.isEmpty { text += "<div class=\"title\">\(escape(title))</div>" }
        if !body.isEmpty { text += "<div class=\"body\">\(escape(body))</div>" }
        if text.isEmpty { text = "<div class=\"body muted\">(no title or body)</div>" }
        let header = "<div class=\"app\"><span class=\"icon\"></span><span class=\"name\">\(escape(appName))</span><span class=\"when\">now</span></div>\n"
        let picture = android.imageShown ? previews?.image : nil
        var html = "<div class=\"view\"><h2>Android, collapsed</h2>\n<div class=\"banner shade\">\n" + header
        html += "<div class=\"row\"><div class=\"text\">\(text)</div>"
        if let icon = android.imageShown ? previews?.thumbnail : nil {
            let width = Self.largeIconWidth(height: Self.largeIconHeight, imageWidth: icon.width, imageHeight: icon.height)
            html += "<img class=\"large-icon\" alt=\"large icon\" width=\"\(width)\" height=\"\(Self.largeIconHeight)\" src=\"\(icon.dataURI)\">"
        }
        html += "</div>\n</div>\n"
        html += androidImageNote(android, previews: previews)
        html += "</div>\n"
        guard let picture else { return html }
        html += "<div class=\"view\"><h2>Android, expanded</h2>\n<div class=\"banner shade\">\n" + header
        html += "<div class=\"text\">\(text)</div>\n"
        html += "<img class=\"picture\" alt=\"big picture\" width=\"\(picture.width)\" height=\"\(picture.height)\" src=\"\(picture.dataURI)\">\n"
        html += "</div>\n</div>\n"
        return html
    }

    /// The large icon's height in the card, in CSS pixels (Android's is 40 dp in the Material template
    /// `notification_template_right_icon.xml`, 48 dp from Android 12; the card is drawn smaller than a phone).
    static let largeIconHeight = 40

    /// The large icon's width for an image of `imageWidth` × `imageHeight`: from Android 12, for an app that targets
    /// it, the icon keeps the image's aspect ratio between square and 16:9 (a taller image is shown square, a
    /// wider one at 16:9), centre-cropped (AOSP CTS `android.app.cts.NotificationTemplateTest`:
    /// `testWideIcon_inCollapsedState_cappedTo16By9`, `..._canShowExact4By3`, `..._neverNarrowerThanSquare`).
    /// An app targeting Android 11 or lower gets a square (`NotificationTemplateApi30Test`): not drawn here.
    static func largeIconWidth(height: Int, imageWidth: Int, imageHeight: Int) -> Int {
        guard imageWidth > 0, imageHeight > 0 else { return height }
        let ratio = min(max(Double(imageWidth) / Double(imageHeight), 1), 16.0 / 9.0)
        return Int((Double(height) * ratio).rounded())
    }

    /// What the Android image is, or why the notification shows none.
    private func androidImageNote(_ android: AndroidResult, previews: ReportCard.Previews?) -> String {
        guard android.imageURL != nil else { return "" }
        guard android.imageShown, let image = android.image else {
            return "<p class=\"image-note\">\(escape("image not shown: see the findings"))</p>\n"
        }
        var words = image.format.rawValue.uppercased()
        if let width = image.width, let height = image.height { words += " \(width)×\(height)" }
        if let frames = image.frames, frames > 1 { words += ", first of \(frames) frames" }
        words += ", \(image.bytes) bytes"
        if let problem = previews?.problem ?? (previews == nil ? "the image file was not kept" : nil) { words += "; no preview: \(problem)" }
        return "<p class=\"image-note\">\(escape(words))</p>\n"
    }

    private func textLines(_ content: NotificationContent, hasText: Bool) -> String {
        guard hasText else { return "<div class=\"body muted\">(no alert text)</div>" }
        var html = ""
        if !content.title.isEmpty { html += "<div class=\"title\">\(escape(content.title))</div>" }
        if !content.subtitle.isEmpty { html += "<div class=\"subtitle\">\(escape(content.subtitle))</div>" }
        if !content.body.isEmpty { html += "<div class=\"body\">\(escape(content.body))</div>" }
        return html
    }

    /// What the image line of the text report says, and how the thumbnail was drawn.
    private func imageNote(_ content: NotificationContent, card: ReportCard) -> String {
        guard let attachment = content.attachments.first else { return "" }
        var words = attachment.type
        if let width = attachment.width, let height = attachment.height { words += " \(width)×\(height)" }
        if let frames = attachment.frames, frames > 1 { words += ", \(frames) frames" }
        words += ", \(attachment.bytes) bytes"
        if let options = attachment.thumbnail {
            if options.hidden == true { words += "; thumbnail hidden" }
            if let rect = options.clippingRect { words += "; thumbnail clipped to (\(Self.number(rect.x)), \(Self.number(rect.y)), \(Self.number(rect.width)), \(Self.number(rect.height)))" }
            if options.time != nil, let frame = card.thumbnail?.frame { words += "; thumbnail frame \(frame + 1)" }
        }
        if let problem = card.previewProblem { words += "; no preview: \(problem)" }
        return "<p class=\"image-note\">\(escape(words))</p>\n"
    }

    private func findings(_ diagnostics: [Diagnostic]) -> String {
        let shown = diagnostics.sorted { $0.severity > $1.severity }
        guard !shown.isEmpty else { return "" }
        var html = "<ul class=\"findings\">\n"
        for diagnostic in shown {
            html += "<li class=\"\(diagnostic.severity.rawValue)\"><span class=\"sev\">\(diagnostic.severity.rawValue)</span> \(escape(diagnostic.message)) <code>\(escape(diagnostic.code.rawValue))</code></li>\n"
        }
        return html + "</ul>\n"
    }

    /// The codes a card can be filtered by: its errors and warnings, in order, once each.
    package static func codes(of result: ProcessResult) -> [String] {
        var codes: [String] = []
        for diagnostic in result.verdictDiagnostics where diagnostic.severity != .info && !codes.contains(diagnostic.code.rawValue) {
            codes.append(diagnostic.code.rawValue)
        }
        return codes
    }

    /// The headline's words as a sentence; the badge beside it is the verdict's.
    static func plainWords(_ result: ProcessResult) -> String {
        let words = result.headline.words
        return words.prefix(1).uppercased() + words.dropFirst() + "."
    }

    /// The Android side (`--platform android|both`) in a sentence; its findings are listed with the others.
    static func androidWords(_ android: AndroidResult) -> String {
        if android.diagnostics.contains(where: { $0.code == .androidNotFCM }) { return "Android: not applicable (an APNs payload)." }
        guard let notification = android.notification else { return "Android: a data-only message, no notification is shown." }
        let title = notification["title"]?.stringValue.map { " \"\($0)\"" } ?? ""
        if android.imageShown { return "Android: the notification\(title) shows its image." }
        return android.imageURL == nil ? "Android: the notification\(title) is shown (no image asked for)." : "Android: the notification\(title) is shown WITHOUT its image."
    }

    private static func number(_ value: Double) -> String {
        String(format: "%g", value)
    }

    /// Escapes text for HTML content and quoted attributes.
    func escape(_ text: String) -> String {
        MarkupEscaping.escape(text)
    }

    package static let style = """
        :root{--bg:#f2f2f7;--fg:#1c1c1e;--muted:#6e6e73;--card:#fff;--banner:rgba(235,235,240,.92);--line:#d1d1d6;\
        --pass:#248a3d;--fail:#d70015;--error:#a05a00;--warn:#b25000;font:15px/1.35 -apple-system,system-ui,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
        @media (prefers-color-scheme:dark){:root{--bg:#000;--fg:#f2f2f7;--muted:#98989f;--card:#1c1c1e;--banner:rgba(58,58,60,.92);\
        --line:#38383a;--pass:#30d158;--fail:#ff453a;--error:#ff9f0a;--warn:#ffd60a}}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--fg)}
        .top{padding:16px 20px 8px;position:sticky;top:0;background:var(--bg);z-index:1;border-bottom:1px solid var(--line)}
        h1{font-size:22px;margin:0 0 10px}
        .summary{display:flex;flex-wrap:wrap;gap:8px}
        .figure{background:var(--card);border-radius:12px;padding:8px 14px;min-width:92px}
        .figure b{display:block;font-size:22px}.figure span{color:var(--muted);font-size:13px}
        .figure.fail b{color:var(--fail)}.figure.error b{color:var(--error)}.figure.pass b{color:var(--pass)}.figure.warn b{color:var(--warn)}
        .notes{color:var(--muted);font-size:13px;margin:8px 0}
        .filters{display:flex;flex-wrap:wrap;gap:12px;align-items:center;font-size:13px}
        .filters select{font:inherit;margin-left:4px;max-width:60vw}
        .cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:16px;padding:16px 20px}
        .card{background:var(--card);border-radius:16px;padding:14px;border-top:4px solid var(--pass);min-width:0}
        .card.fail{border-top-color:var(--fail)}.card.error{border-top-color:var(--error)}
        .verdict{display:flex;gap:8px;align-items:center}
        .badge{font-weight:700;font-size:12px;padding:2px 8px;border-radius:6px;color:#fff;background:var(--pass)}
        .badge.fail{background:var(--fail)}.badge.error{background:var(--error)}
        .outcome{font-family:ui-monospace,Menlo,monospace;font-size:13px}
        .path{font-family:ui-monospace,Menlo,monospace;font-size:12px;color:var(--muted);margin:6px 0;overflow-wrap:anywhere}
        .words{margin:4px 0 10px}
        .view h2{font-size:11px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:10px 0 4px;font-weight:600}
        .banner{background:var(--banner);border-radius:20px;padding:10px 12px;backdrop-filter:blur(20px)}
        .app{display:flex;align-items:center;gap:6px;font-size:12px;color:var(--muted);margin-bottom:2px}
        .icon{width:18px;height:18px;border-radius:5px;background:linear-gradient(135deg,#5ac8fa,#007aff);display:inline-block}
        .name{text-transform:uppercase;letter-spacing:.02em;flex:1}
        .row{display:flex;gap:10px;align-items:flex-start}.row .text{flex:1;min-width:0}
        .title{font-weight:600}.subtitle{font-weight:500}.body{overflow-wrap:anywhere;white-space:pre-line}
        .muted{color:var(--muted)}
        .thumb{width:38px;height:38px;object-fit:cover;border-radius:7px;flex:none;margin-top:2px}
        .expanded{padding:0;overflow:hidden}.expanded .text{padding:10px 12px}
        .full{display:block;width:100%;height:auto;max-height:420px;object-fit:contain;background:rgba(127,127,127,.15)}
        .image-note{font-size:12px;color:var(--muted);margin:6px 2px}
        .android{font-size:13px;margin:8px 2px 0}
        .shade{border-radius:16px}.shade .icon{border-radius:50%;background:#1a73e8}.shade .name{text-transform:none}
        .large-icon{height:40px;object-fit:cover;border-radius:6px;flex:none;margin-top:2px}
        .picture{display:block;width:100%;height:auto;max-height:180px;object-fit:cover;border-radius:12px;margin-top:8px}
        .nothing{border:2px dashed var(--line);border-radius:20px;padding:18px;text-align:center;color:var(--muted)}
        .findings{list-style:none;padding:0;margin:10px 0 0;font-size:13px}
        .findings li{padding:6px 0;border-top:1px solid var(--line)}
        .findings code{font-size:11px;color:var(--muted);white-space:nowrap}
        .sev{font-weight:700;text-transform:uppercase;font-size:10px;padding:1px 5px;border-radius:4px;margin-right:4px;color:#fff;background:var(--muted)}
        .error .sev{background:var(--fail)}.warning .sev{background:var(--warn);color:#000}
        .empty{text-align:center;color:var(--muted)}
        @media (max-width:480px){.cards{grid-template-columns:1fr;padding:10px}.top{position:static;padding:12px}.figure{min-width:70px}}
        """

    static let script = """
        (function(){var cards=[].slice.call(document.querySelectorAll('.card'));\
        var s=document.getElementById('f-status'),o=document.getElementById('f-outcome'),c=document.getElementById('f-code'),\
        n=document.getElementById('f-count'),none=document.getElementById('none');\
        function apply(){var shown=0;cards.forEach(function(card){var ok=(!s.value||card.dataset.status===s.value)&&\
        (!o.value||card.dataset.outcome===o.value)&&(!c.value||card.dataset.codes.split(' ').indexOf(c.value)>=0);\
        card.hidden=!ok;if(ok)shown++;});n.textContent=shown+' of '+cards.length+' shown';none.hidden=shown>0;}\
        [s,o,c].forEach(function(e){e.addEventListener('change',apply);});apply();})();
        """
}
