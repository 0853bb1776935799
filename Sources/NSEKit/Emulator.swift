import Foundation

/// Runs a push through what an iPhone does with it: delivery checks, the decision to run the service
/// extension, the extension itself, and the system's validation of its attachments.
public struct Emulator: Sendable {
    public var profile: DeviceProfile
    public var serviceExtension: ServiceExtension
    public var hostMapping: MediaHostMapping?
    /// Shared by the pushes of a batch: each URL is downloaded, and each downloaded file validated, once.
    public var mediaCache: SharedMediaCache?
    /// Where each run's private working folder is made; the system's temporary directory when nil. A batch puts
    /// it beside its output so attachments move into place by rename rather than by copy. Folders made under a
    /// `workRoot` are left for its owner to remove in one go: removing them one per push during a batch made
    /// every later file creation slower (ext4 without a journal skips recently freed inodes one by one).
    public var workRoot: URL?

    /// The built-in extension: the given content changes, then Firebase's image helper.
    public init(profile: DeviceProfile = DeviceProfile(), changes: ContentChanges = ContentChanges(), hostMapping: MediaHostMapping? = nil) {
        self.init(profile: profile, serviceExtension: ServiceExtension(steps: [changes, FirebaseImageHelper()]), hostMapping: hostMapping)
    }

    public init(profile: DeviceProfile, serviceExtension: ServiceExtension, hostMapping: MediaHostMapping? = nil) {
        self.profile = profile
        self.serviceExtension = serviceExtension
        self.hostMapping = hostMapping
    }

    /// Processes the push in `file`. With `attachmentDirectory`, kept attachments are saved there.
    public func process(file: URL, attachmentDirectory: URL? = nil) async -> ProcessResult {
        let started = ContinuousClock.now
        let push: ReceivedPush
        do {
            push = try PushReader.read(file)
        } catch {
            return ProcessResult(
                input: file.relativePath, inputKind: nil, extensionInvoked: false, outcome: .rejected, imageShown: false,
                content: nil, diagnostics: [error.diagnostic], timings: ["read": started.duration(to: .now).milliseconds])
        }
        let reading = started.duration(to: .now).milliseconds
        var result = await process(push, input: file.relativePath, attachmentDirectory: attachmentDirectory)
        result.timings["read"] = reading
        result.timings["total", default: 0] += reading
        return result
    }

    /// Processes a push already read.
    public func process(_ push: ReceivedPush, input: String, attachmentDirectory: URL? = nil) async -> ProcessResult {
        let started = ContinuousClock.now
        var result = ProcessResult(
            input: input, inputKind: push.kind, extensionInvoked: false, outcome: .rejected, imageShown: false,
            content: nil, diagnostics: push.diagnostics, timings: [:])
        await emulate(push, into: &result, attachmentDirectory: attachmentDirectory)
        result.timings["total"] = started.duration(to: .now).milliseconds
        return result
    }

    private func emulate(_ push: ReceivedPush, into result: inout ProcessResult, attachmentDirectory: URL?) async {
        let rejections = DeliveryRules.check(push)
        result.diagnostics += rejections
        guard rejections.isEmpty else { return }

        let original = NotificationContent(userInfo: push.userInfo)
        let eligibility = ExtensionEligibility.decide(
            aps: push.userInfo["aps"]?.objectValue ?? [:], kind: push.kind, profile: profile)
        result.diagnostics += eligibility.diagnostics
        guard eligibility.invoked else {
            result.outcome = .original
            result.content = original
            result.diagnostics.append(notInvoked(eligibility.reason ?? "", push: push))
            return
        }
        result.extensionInvoked = true
        await runExtension(original: original, into: &result, attachmentDirectory: attachmentDirectory)
    }

    private func runExtension(original: NotificationContent, into result: inout ProcessResult, attachmentDirectory: URL?) async {
        let workDirectory = (workRoot ?? FileManager.default.temporaryDirectory).appendingPathComponent("nse-\(UUID().uuidString)")
        defer { if workRoot == nil { try? FileManager.default.removeItem(at: workDirectory) } }
        do {
            try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        } catch {
            result.diagnostics.append(.error(.mediaNotSaved, "Cannot create a working folder in \(FileManager.default.temporaryDirectory.path): \(error.localizedDescription)."))
        }
        let context = ExtensionContext(
            profile: profile, deadline: .now + profile.timeBudget,
            fetcher: fetcher, workDirectory: workDirectory)

        var state = ExtensionState(original: original)
        let started = ContinuousClock.now
        let delivery = await serviceExtension.run(&state, context: context)
        result.timings["extension"] = started.duration(to: .now).milliseconds
        for (step, milliseconds) in state.timings { result.timings["extension.\(step)"] = milliseconds }
        result.diagnostics += state.diagnostics

        var content = state.bestAttemptContent
        let validationStarted = ContinuousClock.now
        switch delivery {
        case .expired:
            content.attachments = []
            result.outcome = .bestAttempt
        case .delivered:
            let validation = await validate(state.stagedAttachments)
            result.diagnostics += validation.diagnostics
            content.attachments = save(validation.kept, staged: state.stagedAttachments, to: attachmentDirectory, diagnostics: &result.diagnostics)
            result.imageShown = !content.attachments.isEmpty
            result.outcome = state.mediaRequested && !result.imageShown ? .modifiedWithoutAttachment : .modified
        }
        result.timings["validation"] = validationStarted.duration(to: .now).milliseconds
        result.content = content
    }

    private var fetcher: MediaFetcher {
        var fetcher = MediaFetcher(profile: profile, hostMapping: hostMapping)
        fetcher.cache = mediaCache
        return fetcher
    }

    private func validate(_ staged: [StagedAttachment]) async -> (kept: [Attachment], diagnostics: [Diagnostic]) {
        guard let mediaCache else { return SystemValidation.validate(staged, profile: profile) }
        return await mediaCache.validation(of: staged, profile: profile)
    }

    /// Moves kept attachment files into `directory` (atomically) and records where they are.
    private func save(_ kept: [Attachment], staged: [StagedAttachment], to directory: URL?, diagnostics: inout [Diagnostic]) -> [Attachment] {
        guard let directory else { return kept }
        return kept.map { attachment in
            guard let source = staged.first(where: { $0.attachment.identifier == attachment.identifier })?.localFile else {
                return attachment
            }
            var saved = attachment
            let destination = directory.appendingPathComponent(source.lastPathComponent)
            do {
                try AtomicFile.move(source, to: destination)
                saved.file = destination.relativePath
            } catch {
                diagnostics.append(.warning(.mediaNotSaved, "The attachment could not be saved to \(destination.path): \(error.localizedDescription). The verdict is unaffected."))
            }
            return saved
        }
    }

    private func notInvoked(_ reason: String, push: ReceivedPush) -> Diagnostic {
        let imageRequested = push.userInfo["fcm_options"]?["image"]?.stringValue != nil
        let changesRequested = serviceExtension.steps.contains { ($0 as? ContentChanges).map { !$0.isEmpty } ?? false }
        if imageRequested {
            return .error(.extensionNotInvoked, "iOS does not run the Notification Service Extension: \(reason). The image will NOT appear; the phone shows the payload's own content.")
        }
        if changesRequested {
            return .warning(.extensionNotInvoked, "iOS does not run the Notification Service Extension: \(reason). Your extension's content changes will not appear.")
        }
        return .info(.extensionNotInvoked, "iOS does not run the Notification Service Extension: \(reason). The payload's own content is shown.")
    }
}
