import Foundation
import CImageFixtures
import NSEHarness
import NSEMediaServer
import NSETestSupport
import NSEPush
import NSEReports
import Testing
import UserNotifications

/// Apps' own extensions, run by the harness against a real loopback server and the real codecs.
struct ExtensionHarnessTests {
    private func payload(image: String? = nil, mutable: Bool = true, extra: String = "") -> String {
        let options = image.map { #", "fcm_options": {"image": "\#($0)"}"# } ?? ""
        let mutableKey = mutable ? #", "mutable-content": 1"# : ""
        return #"{"aps": {"alert": {"title": "Sale", "body": "Today"}\#(mutableKey)}\#(options)\#(extra)}"#
    }

    /// iOS's own 30 s unless a test is about expiry: a starved machine cannot run into it.
    private func harness(budget: Duration = .seconds(30)) -> ExtensionHarness {
        var harness = ExtensionHarness()
        harness.profile.allowsHTTP = true
        harness.profile.timeBudget = budget
        harness.expiryGrace = .milliseconds(500)
        harness.measuresMemory = false
        return harness
    }

    private func png(in folder: URL, named name: String = "pic.png") throws -> URL {
        let file = folder.appendingPathComponent(name)
        let status = file.path.withCString { cimagefixtures_write_png($0, 40, 30, 0, 1) }
        try #require(status == 0)
        return file
    }

    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-harness-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func firebasesDocumentedExtensionShowsTheImageAndItsChanges() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = try Data(contentsOf: try png(in: folder))
        let server = try LoopbackHTTPServer { _ in .ok(Array(image), contentType: "image/png") }
        defer { server.stop() }

        let delivered = try await harness().run(FirebaseService.self, payload: payload(image: server.baseURL + "/sale.png"))

        #expect(delivered.outcome == .modified)
        #expect(delivered.imageShown)
        #expect(delivered.content.title == "Sale [modified]")
        #expect(delivered.content.badge == 3)
        #expect(delivered.content.interruptionLevel == .timeSensitive)
        #expect(delivered.content.relevanceScore == 0.8)
        let attachment = try #require(delivered.content.attachments.first)
        #expect(attachment.type == "public.png")
        #expect(try Data(contentsOf: attachment.url) == image)
        #expect(delivered.result.content?.attachments.first?.width == 40)
    }

    @Test func anExtensionThatNeverCallsTheHandlerShowsTheOriginal() async throws {
        let delivered = try await harness(budget: .milliseconds(300)).run(SilentService.self, payload: payload())
        #expect(delivered.outcome == .original)
        #expect(delivered.content.title == "Sale")
        #expect(delivered.diagnostics.map(\.code) == [.extensionTimeExpired, .extensionHandlerNotCalled])
    }

    @Test func aSecondHandlerCallIsReportedAndIgnored() async throws {
        let delivered = try await harness().run(TwiceService.self, payload: payload())
        #expect(delivered.content.title == "first")
        #expect(delivered.diagnostics.map(\.code).contains(.extensionHandlerCalledTwice))
    }

    @Test(.timeLimit(.minutes(1)))
    func sleepingPastTheBudgetDeliversTheBestAttemptFromTheExpiryCall() async throws {
        let delivered = try await harness(budget: .milliseconds(500)).run(SleepyService.self, payload: payload())
        #expect(delivered.outcome == .bestAttempt)
        #expect(delivered.content.title == "best attempt")
        #expect(delivered.diagnostics.map(\.code) == [.extensionTimeExpired])
        // didReceive's own late call comes after iOS has ended the extension: it never counts, however late the
        // harness looks.
        #expect(delivered.activity.handlerCalls.map(\.thread) == ["serviceExtensionTimeWillExpire"])
        #expect(delivered.activity.handlerCalls.first?.used == true)
    }

    /// On a device the expiry call's content is shown with the attachment set on it, after the budget: the image
    /// shows (late), so the verdict passes with a warning, and every headline says so.
    @Test(.timeLimit(.minutes(1)))
    func anAttachmentDeliveredOnlyByTheExpiryCallShowsLateWithAWarning() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try png(in: folder)
        let delivered = try await harness(budget: .milliseconds(300)).run(ExpiryOnlyService.self, payload: payload(extra: #", "file": "\#(file.path)""#))
        #expect(delivered.outcome == .bestAttempt)
        #expect(delivered.imageShown)
        #expect(delivered.content.title == "late")
        let expiry = try #require(delivered.diagnostics.first { $0.code == .extensionTimeExpired })
        #expect(expiry.severity == .warning)
        #expect(expiry.message.contains("with its image"))
        #expect(delivered.result.verdict == .pass)
        let text = TextResultRenderer().render(delivered.result)
        #expect(text.contains("OK: the handler was called only when time ran out"))
        #expect(!text.contains("FAIL"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(JSONResultRenderer().render(delivered.result).utf8)) as? [String: Any])
        #expect(json["verdict"] as? String == "pass")
        #expect((json["headline"] as? String)?.hasPrefix("OK: ") == true)
        #expect(delivered.result.headline.words.contains("with its image"))
    }

    /// Without an attachment on it, the expiry call's delivery is the time-out it always was.
    @Test(.timeLimit(.minutes(1)))
    func theExpiryCallWithoutAnAttachmentStillFails() async throws {
        let delivered = try await harness(budget: .milliseconds(300)).run(ExpiryOnlyService.self, payload: payload())
        #expect(delivered.outcome == .bestAttempt)
        #expect(!delivered.imageShown)
        #expect(delivered.diagnostics.first { $0.code == .extensionTimeExpired }?.severity == .error)
        #expect(delivered.result.verdict == .fail)
        #expect(TextResultRenderer().render(delivered.result).contains("FAIL: time ran out"))
    }

    /// The expiry call cancels a download, whose completion delivers first; the expiry call's own delivery, 0.2 s
    /// later, still counts: the harness waits for serviceExtensionTimeWillExpire to return (within the grace), not
    /// only for the download.
    @Test(.timeLimit(.minutes(1)))
    func theExpiryCallsOwnDeliveryAfterACancelledDownloadsCounts() async throws {
        let server = try LoopbackHTTPServer { _ in ServedResponse(body: .stall) }
        defer { server.stop() }
        var harness = harness(budget: .milliseconds(500))
        harness.expiryGrace = .seconds(10)
        let delivered = try await harness.run(
            CancellingExpiryService.self, payload: payload(extra: #", "image_url": "\#(server.baseURL)/pic.png""#))
        #expect(delivered.outcome == .bestAttempt)
        #expect(delivered.activity.handlerCalls.map(\.thread) == ["URLSession", "serviceExtensionTimeWillExpire"])
        #expect(delivered.diagnostics.map(\.code).contains(.extensionHandlerCalledTwice))
    }

    /// Extensions whose didReceive blocks its thread (eight, more than the cores) hold up neither their own expiry
    /// calls nor another push: the executor gives every job a thread when all are busy.
    @Test(.timeLimit(.minutes(1)))
    func blockedDidReceivesHoldUpNeitherTheirExpiryNorOtherPushes() async throws {
        let sleepy = harness(budget: .milliseconds(500))
        // Long enough that it would expire if it had to wait for a blocked worker (each sleeps 3 s).
        let quick = harness(budget: .seconds(2))
        let payload = payload()
        let (blocked, other) = try await withThrowingTaskGroup(of: DeliveredNotification?.self) { group in
            for _ in 0..<8 { group.addTask { try await sleepy.run(SleepyService.self, payload: payload) } }
            let other = try await quick.run(FirebaseService.self, payload: payload)
            var blocked: [DeliveredNotification] = []
            for try await delivered in group { if let delivered { blocked.append(delivered) } }
            return (blocked, other)
        }
        #expect(blocked.count == 8)
        for delivered in blocked {
            #expect(delivered.outcome == .bestAttempt)
            #expect(delivered.activity.handlerCalls.map(\.thread) == ["serviceExtensionTimeWillExpire"])
        }
        #expect(other.outcome == .modified)
        #expect(other.content.title == "Sale [modified]")
    }

    @Test func attachingAWebPFileThrowsUNError101AndShowsNoImage() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let webp = folder.appendingPathComponent("photo.webp")
        try Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8).write(to: webp)
        let delivered = try await harness().run(LocalFileService.self, payload: payload(extra: #", "file": "\#(webp.path)""#))
        #expect(delivered.content.body == "UNError 101")
        #expect(delivered.outcome == .modifiedWithoutAttachment)
        #expect(!delivered.imageShown)
        #expect(delivered.diagnostics.map(\.code) == [.mediaUnsupportedFormat])
    }

    @Test func deletingTheAttachmentFileBeforeDeliveryDropsIt() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try png(in: folder)
        let delivered = try await harness().run(LocalFileService.self, payload: payload(extra: #", "file": "\#(file.path)", "delete": true"#))
        #expect(delivered.content.body == "Today", "the attachment was created without error")
        #expect(!delivered.imageShown)
        #expect(delivered.diagnostics.map(\.code) == [.mediaAttachmentMissing])
    }

    @Test func aLocalPNGAttachmentIsValidatedAndShown() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try png(in: folder)
        let delivered = try await harness().run(LocalFileService.self, payload: payload(extra: #", "file": "\#(file.path)""#))
        #expect(delivered.imageShown)
        #expect(delivered.content.attachments.first?.identifier == "local")
    }

    /// Both attachments are delivered, and the file the extension attached is left where it was.
    @Test func aFileAttachedTwiceGivesBothAttachments() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try png(in: folder)
        let delivered = try await harness().run(TwiceAttachedFileService.self, payload: payload(extra: #", "file": "\#(file.path)""#))
        #expect(delivered.content.attachments.map(\.identifier) == ["first", "second"])
        #expect(FileManager.default.fileExists(atPath: file.path))
    }

    @Test func aTypeHintOverridesTheMissingExtension() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try png(in: folder, named: "noextension")
        let unhinted = try await harness().run(LocalFileService.self, payload: payload(extra: #", "file": "\#(file.path)""#))
        #expect(unhinted.content.body == "UNError 101")
        let hinted = try await harness().run(LocalFileService.self, payload: payload(extra: #", "file": "\#(file.path)", "hint": "public.png""#))
        #expect(hinted.imageShown)
    }

    @Test func aClippingRectInPixelsIsFlagged() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try png(in: folder)
        let delivered = try await harness().run(LocalFileService.self, payload: payload(extra: #", "file": "\#(file.path)", "clip": [0.0, 0.0, 40.0, 30.0]"#))
        #expect(delivered.imageShown)
        #expect(delivered.diagnostics.map(\.code) == [.extensionAttachmentOption])
    }

    @Test(.disabled(if: OwnProcess.isChild)) func anExtensionOverTheMemoryLimitIsKilledAndTheOriginalShown() async throws {
        let alone = try await OwnProcess.run(suite: "ExtensionHarnessTests", test: "greedyExtensionInItsOwnProcess")
        #expect(alone.passedAlone, "\(alone)")
    }

    /// The test above, run in a process of its own: nothing else allocates or frees while the process is measured.
    /// Its budget is long, so a starved machine cannot turn the memory kill into a time expiry.
    @Test(.enabled(if: OwnProcess.isChild)) func greedyExtensionInItsOwnProcess() async throws {
        var harness = harness(budget: .seconds(60))
        harness.memoryMeasurement = .exclusive
        let delivered = try await harness.run(GreedyService.self, payload: payload())
        try #require(delivered.activity.memory?.processMeasurement == .measured, "this kernel does not report peak memory")
        #expect(delivered.outcome == .original)
        #expect(delivered.diagnostics.map(\.code) == [.extensionMemoryLimit])
        #expect(delivered.content.subtitle.isEmpty)
    }

    @Test func withoutMutableContentTheExtensionIsNeverRun() async throws {
        let delivered = try await harness().run(TwiceService.self, payload: payload(mutable: false))
        #expect(!delivered.extensionInvoked)
        #expect(delivered.outcome == .original)
        #expect(delivered.content.title == "Sale")
    }

    @Test(arguments: [
        (#", "google.c.sender.id": "1", "gcm.message_id": "2", "google.c.fid": "3""#, Diagnostic.Severity.info, ""),
        (#", "gcm.message_id": "2""#, .warning, "2005"),
        (#", "google.c.sender.id": "1""#, .warning, "2006"),
        (#", "google.c.sender.id": "1", "gcm.message_id": "2""#, .warning, "2007"),
    ])
    func deliveryMetricsExportStopsAtTheFirstMissingField(extra: String, severity: Diagnostic.Severity, logCode: String) async throws {
        let delivered = try await harness().run(MetricsService.self, payload: payload(extra: extra))
        let finding = try #require(delivered.diagnostics.first { $0.code == .firebaseDeliveryMetrics })
        #expect(finding.severity == severity)
        if !logCode.isEmpty { #expect(finding.message.contains(logCode)) }
    }
}

/// The stand-in types behave as Apple's do.
struct UserNotificationsTests {
    @Test func mutableCopyCarriesEveryFieldAndCopiesAreIndependent() throws {
        let content = UNMutableNotificationContent()
        content.title = "T"
        content.subtitle = "S"
        content.body = "B"
        content.badge = 2
        content.sound = .default
        content.categoryIdentifier = "C"
        content.threadIdentifier = "TH"
        content.targetContentIdentifier = "TC"
        content.userInfo = ["k": "v"]
        content.relevanceScore = 7
        let copy = try #require(content.mutableCopy() as? UNMutableNotificationContent)
        copy.title = "changed"
        #expect(content.title == "T")
        #expect(copy.subtitle == "S" && copy.body == "B" && copy.badge == 2 && copy.categoryIdentifier == "C")
        #expect(copy.threadIdentifier == "TH" && copy.targetContentIdentifier == "TC" && copy.userInfo["k"] as? String == "v")
        #expect(copy.relevanceScore == 1, "relevance is clamped to 0...1")
        let frozen = content.copy() as? UNNotificationContent
        #expect(frozen != nil && !(frozen is UNMutableNotificationContent))
    }

    @Test func attachmentCreationThrowsApplesCodes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-un-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func code(_ name: String, bytes: Int = 10, url: URL? = nil) -> UNError.Code? {
            let file = folder.appendingPathComponent(name)
            _ = FileManager.default.createFile(atPath: file.path, contents: Data(count: bytes))
            do {
                _ = try UNNotificationAttachment(identifier: "", url: url ?? file)
                return nil
            } catch let error as UNError {
                return error.code
            } catch {
                return nil
            }
        }
        #expect(code("a.jpg") == nil)
        #expect(code("a.gif", url: URL(string: "https://example.com/a.gif")) == .attachmentInvalidURL)
        #expect(code("b.jpg", url: folder.appendingPathComponent("missing.jpg")) == .attachmentInvalidURL)
        #expect(code("c") == .attachmentUnrecognizedType)
        #expect(code("d.heic") == .attachmentUnrecognizedType)
        #expect(code("e.png", bytes: 10_485_761) == .attachmentInvalidFileSize)
        #expect(code("e2.png", bytes: 10_000_001) == nil, "between the two readings of MB: a warning, not UNError 102")
        #expect(code("f.mp4", bytes: 10_000_001) == nil, "movies may be 50 MB")
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("g").path, contents: Data(count: 1))
        do {
            _ = try UNNotificationAttachment(identifier: "", url: folder.appendingPathComponent("g"))
            Issue.record("no error")
        } catch UNError.attachmentUnrecognizedType {
            // Pattern-matching on the code works as on iOS.
        } catch {
            Issue.record("wrong error \(error)")
        }
    }
}
