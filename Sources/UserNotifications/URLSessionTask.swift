import Foundation
import FoundationNetworking
import NSEBatch
import NSEMedia
import NSEPipeline
import NSEPush
import Synchronization

/// A task of the stand-in `URLSession`: created suspended, started by `resume()`, run on a thread of its own
/// through the emulated network, completed once (handler or delegate), as on iOS.
open class URLSessionTask: NSObject, @unchecked Sendable {
    public enum State: Int, Sendable {
        case running, suspended, canceling, completed
    }

    // `lock` guards the mutable fields below; the extension may read them from any thread.
    private let lock = Mutex(())
    private var taskState = State.suspended
    private var started = false
    private var finalResponse: URLResponse?
    private var finalError: (any Error)?
    private var received: Int64 = 0
    private var expected: Int64 = -1

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

    open var state: State { lock.withLock { _ in taskState } }
    open var response: URLResponse? { lock.withLock { _ in finalResponse } }
    open var error: (any Error)? { lock.withLock { _ in finalError } }
    open var countOfBytesReceived: Int64 { lock.withLock { _ in received } }
    open var countOfBytesExpectedToReceive: Int64 { lock.withLock { _ in expected } }

    /// Starts the task (once); a later call after `suspend()` has nothing to resume, the transfer never paused.
    open func resume() {
        let start: Bool = lock.withLock { _ in
            guard !started, taskState == .suspended else {
                if taskState == .suspended { taskState = .running }
                return false
            }
            started = true
            taskState = .running
            return true
        }
        if start { session.start(self) }
    }

    /// The transfer is not paused (a notification's download rarely is); the state says suspended until resumed.
    open func suspend() {
        lock.withLock { _ in if taskState == .running { taskState = .suspended } }
    }

    /// Cancels the task: its completion gets NSURLErrorCancelled (-999), as on iOS.
    open func cancel() {
        let wasStarted: Bool = lock.withLock { _ in
            guard taskState != .completed else { return true }
            taskState = .canceling
            return started
        }
        cancellation.cancel()
        // A task never resumed completes at once with the cancellation error.
        if !wasStarted {
            lock.withLock { _ in started = true }
            session.start(self)
        }
    }

    func complete(response: URLResponse?, error: (any Error)?, bytes: Int) {
        lock.withLock { _ in
            finalResponse = response
            finalError = error
            received = Int64(bytes)
            if let http = response as? HTTPURLResponse { expected = http.expectedContentLength }
            taskState = .completed
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
