import Foundation
import FoundationNetworking
import NSEMedia
import Synchronization
import NSEPipeline

/// A task of the stand-in `URLSession`: created suspended, started by `resume()`, run on a thread of its own
/// through the emulated network, completed once (handler or delegate), as on iOS.
open class URLSessionTask: NSObject, @unchecked Sendable {
    public enum State: Int, Sendable {
        case running, suspended, canceling, completed
    }

    /// What changes as the task runs; the extension may read it from any thread.
    private struct Fields {
        var taskState = State.suspended
        var started = false
        var finalResponse: URLResponse?
        var finalError: (any Error)?
        var received: Int64 = 0
        var expected: Int64 = -1
    }

    // Unchecked because the class is open and Foundation's `NSObject`, with `taskDescription` and `priority` left to
    // the extension as on iOS; the task's own state is in `fields`.
    private let fields = Mutex(Fields())

    public let taskIdentifier: Int
    public let originalRequest: URLRequest?
    open var currentRequest: URLRequest? { originalRequest }
    open var taskDescription: String?
    open var priority: Float = 0.5
    let session: URLSession
    let api: String
    let cancellation = TransferCancellation()

    init(session: URLSession, request: URLRequest, identifier: Int, api: String) {
        self.session = session
        self.originalRequest = request
        self.taskIdentifier = identifier
        self.api = api
        super.init()
    }

    open var state: State { fields.withLock { $0.taskState } }
    open var response: URLResponse? { fields.withLock { $0.finalResponse } }
    open var error: (any Error)? { fields.withLock { $0.finalError } }
    open var countOfBytesReceived: Int64 { fields.withLock { $0.received } }
    open var countOfBytesExpectedToReceive: Int64 { fields.withLock { $0.expected } }

    /// Starts the task (once); a later call after `suspend()` has nothing to resume, the transfer never paused.
    open func resume() {
        let start: Bool = fields.withLock { fields in
            guard !fields.started, fields.taskState == .suspended else {
                if fields.taskState == .suspended { fields.taskState = .running }
                return false
            }
            fields.started = true
            fields.taskState = .running
            return true
        }
        if start { session.start(self) }
    }

    /// The transfer is not paused (a notification's download rarely is); the state says suspended until resumed.
    open func suspend() {
        fields.withLock { if $0.taskState == .running { $0.taskState = .suspended } }
    }

    /// Cancels the task: its completion gets NSURLErrorCancelled (-999), as on iOS.
    open func cancel() {
        let wasStarted: Bool = fields.withLock { fields in
            guard fields.taskState != .completed else { return true }
            fields.taskState = .canceling
            return fields.started
        }
        cancellation.cancel()
        // A task never resumed completes at once with the cancellation error.
        if !wasStarted {
            fields.withLock { $0.started = true }
            session.start(self)
        }
    }

    func complete(response: URLResponse?, error: (any Error)?, bytes: Int) {
        fields.withLock { fields in
            fields.finalResponse = response
            fields.finalError = error
            fields.received = Int64(bytes)
            if let http = response as? HTTPURLResponse { fields.expected = http.expectedContentLength }
            fields.taskState = .completed
        }
    }

    /// Runs the transfer and the completion on the calling (task's own) thread. Overridden by the task kinds.
    func run(in environment: ExtensionEnvironment) {}
}

/// A data task: the body arrives in memory.
open class URLSessionDataTask: URLSessionTask, @unchecked Sendable {
    /// Taken by `run` (the task's one run, on its own thread), so the task never holds it afterwards: a handler
    /// that holds the task (a helper tracking its tasks to cancel them) made a cycle that leaked every run.
    private var pendingCompletion: ((Data?, URLResponse?, (any Error)?) -> Void)?

    init(session: URLSession, request: URLRequest, identifier: Int, api: String, completion: ((Data?, URLResponse?, (any Error)?) -> Void)?) {
        pendingCompletion = completion
        super.init(session: session, request: request, identifier: identifier, api: api)
    }

    override func run(in environment: ExtensionEnvironment) {
        let completion = pendingCompletion
        pendingCompletion = nil
        let result = session.perform(self, to: nil, in: environment)
        switch result {
        case .unfinished:
            return
        case .failure(let error):
            complete(response: nil, error: error, bytes: 0)
            if let completion { completion(nil, nil, error) } else { session.taskDidComplete(self, error: error) }
        case .response(let response, let body, _):
            let data = body ?? Data()
            complete(response: response, error: nil, bytes: data.count)
            defer { environment.releaseMemory(bytes: data.count) }
            if let completion {
                completion(data, response, nil)
            } else {
                session.deliver(data, response: response, for: self)
            }
        }
    }
}

/// An upload task: a data task whose request carries a body (POST unless the request says otherwise).
open class URLSessionUploadTask: URLSessionDataTask, @unchecked Sendable {}

/// A download task: the body goes to a `.tmp` file that is deleted once the completion handler (or the
/// delegate's `didFinishDownloadingTo`) returns, as on iOS: move it to keep it.
open class URLSessionDownloadTask: URLSessionTask, @unchecked Sendable {
    /// Taken by `run` (the task's one run, on its own thread), so the task never holds it afterwards: a handler
    /// that holds the task (a helper tracking its tasks to cancel them) made a cycle that leaked every run.
    private var pendingCompletion: ((URL?, URLResponse?, (any Error)?) -> Void)?

    init(session: URLSession, request: URLRequest, identifier: Int, api: String, completion: ((URL?, URLResponse?, (any Error)?) -> Void)?) {
        pendingCompletion = completion
        super.init(session: session, request: request, identifier: identifier, api: api)
    }

    /// Only with `cancel(byProducingResumeData:)`, which has no data to give: the emulated transfer is not resumable.
    open func cancel(byProducingResumeData completionHandler: @escaping (Data?) -> Void) {
        cancel()
        completionHandler(nil)
    }

    override func run(in environment: ExtensionEnvironment) {
        let completion = pendingCompletion
        pendingCompletion = nil
        let file = Self.temporaryFile(in: environment)
        environment.noteFile(file, .created, by: api)
        let result = session.perform(self, to: file, in: environment)
        defer {
            if FileManager.default.fileExists(atPath: file.path) {
                try? FileManager.default.removeItem(at: file)
                environment.noteFile(file, .removed, by: api)
            }
        }
        switch result {
        case .unfinished:
            return
        case .failure(let error):
            complete(response: nil, error: error, bytes: 0)
            if let completion { completion(nil, nil, error) } else { session.taskDidComplete(self, error: error) }
        case .response(let response, _, _):
            let bytes = FileSize.of(file) ?? 0
            complete(response: response, error: nil, bytes: bytes)
            environment.noteFile(file, .written, by: api)
            if let completion {
                completion(file, response, nil)
            } else {
                session.deliver(file: file, for: self)
            }
        }
    }

    /// Where iOS puts a download: the extension's tmp folder, a `CFNetworkDownload_XXXXXX.tmp` name.
    static func temporaryFile(in environment: ExtensionEnvironment) -> URL {
        let folder = environment.context.workDirectory.appendingPathComponent("tmp", isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        let suffix = String((0..<6).compactMap { _ in letters.randomElement() })
        return folder.appendingPathComponent("CFNetworkDownload_\(suffix).tmp")
    }
}
