@_exported import FoundationNetworking
import Foundation
import NSEConcurrency
import Synchronization
import NSEPush

/// `URLSession` for an app's extension compiled on Linux. Every file that imports UserNotifications sees this
/// class instead of FoundationNetworking's, so the extension's own requests go through the emulated device
/// network (App Transport Security from its Info.plist, its remaining time, host mapping onto the test's
/// loopback server, libcurl underneath) and are recorded in the result. `URLRequest`, `URLResponse`,
/// `HTTPURLResponse` and `URLSessionConfiguration` are Foundation's own.
open class URLSession: NSObject, @unchecked Sendable {
    /// What a data delegate answers when the response arrives.
    public enum ResponseDisposition: Int, Sendable {
        case cancel, allow, becomeDownload, becomeStream
    }

    /// The shared session of the harness run on this thread (one per run, so parallel tests stay apart).
    open class var shared: URLSession {
        guard let environment = ExtensionEnvironment.current else { return unattached }
        return environment.withSharedSession { URLSession(configuration: .default, environment: environment, isShared: true) }
    }

    /// For code outside any harness run: a default device, no host mapping.
    private static let unattached = URLSession(configuration: .default, environment: nil, isShared: true)

    public let configuration: URLSessionConfiguration
    /// Held until the session is invalidated and has said so to it, then released, as on iOS: the delegate is
    /// often the extension that holds the session, and holding it for ever leaked both (LeakSanitizer).
    public var delegate: (any URLSessionDelegate)? { state.withLock { $0.heldDelegate }?.delegate }
    public let delegateQueue: OperationQueue
    open var sessionDescription: String?
    /// The run the session was made in; a task made on a thread with a run of its own uses that one.
    let environment: ExtensionEnvironment?
    private let isShared: Bool

    /// The task list, the invalidation state and the delegate.
    private struct State {
        var heldDelegate: HeldDelegate?
        var tasks: [Int: URLSessionTask] = [:]
        var nextIdentifier = 1
        var invalidated = false
        var invalidationReported = false
    }

    // Unchecked because the class is open and Foundation's `NSObject`, with `sessionDescription` left to the
    // extension as on iOS; the session's own state is in `state`. `callbacks` keeps delegate calls one at a time, as
    // iOS's serial delegate queue does.
    private let state: Mutex<State>
    // Re-entrant: a delegate method may invalidate the session, which reports to the delegate in turn.
    private let callbacks = DelegateQueue()

    public convenience init(configuration: URLSessionConfiguration) {
        self.init(configuration: configuration, delegate: nil, delegateQueue: nil)
    }

    public init(configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?, delegateQueue queue: OperationQueue?) {
        self.configuration = configuration
        self.state = Mutex(State(heldDelegate: delegate.map(HeldDelegate.init)))
        self.delegateQueue = queue ?? OperationQueue()
        self.environment = ExtensionEnvironment.current
        self.isShared = false
        super.init()
    }

    private init(configuration: URLSessionConfiguration, environment: ExtensionEnvironment?, isShared: Bool) {
        self.configuration = configuration
        self.state = Mutex(State())
        self.delegateQueue = OperationQueue()
        self.environment = environment
        self.isShared = isShared
        super.init()
    }

    // MARK: Tasks with a completion handler

    open func dataTask(with url: URL, completionHandler: @escaping (Data?, URLResponse?, (any Error)?) -> Void) -> URLSessionDataTask {
        dataTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    open func dataTask(with request: URLRequest, completionHandler: @escaping (Data?, URLResponse?, (any Error)?) -> Void) -> URLSessionDataTask {
        register { URLSessionDataTask(session: self, request: request, identifier: $0, api: "URLSession.dataTask", completion: completionHandler) }
    }

    open func downloadTask(with url: URL, completionHandler: @escaping (URL?, URLResponse?, (any Error)?) -> Void) -> URLSessionDownloadTask {
        downloadTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    open func downloadTask(with request: URLRequest, completionHandler: @escaping (URL?, URLResponse?, (any Error)?) -> Void) -> URLSessionDownloadTask {
        register { URLSessionDownloadTask(session: self, request: request, identifier: $0, api: "URLSession.downloadTask", completion: completionHandler) }
    }

    /// A request with a body (an analytics ping, a delivery receipt): a data task that sends `bodyData`.
    open func uploadTask(with request: URLRequest, from bodyData: Data?, completionHandler: @escaping (Data?, URLResponse?, (any Error)?) -> Void) -> URLSessionUploadTask {
        var request = request
        request.httpBody = bodyData
        if request.httpMethod == nil || request.httpMethod == "GET" { request.httpMethod = "POST" }
        return register { URLSessionUploadTask(session: self, request: request, identifier: $0, api: "URLSession.uploadTask", completion: completionHandler) }
    }

    // MARK: Tasks reporting to the delegate

    open func uploadTask(with request: URLRequest, from bodyData: Data) -> URLSessionUploadTask {
        var request = request
        request.httpBody = bodyData
        if request.httpMethod == nil || request.httpMethod == "GET" { request.httpMethod = "POST" }
        return register { URLSessionUploadTask(session: self, request: request, identifier: $0, api: "URLSession.uploadTask", completion: nil) }
    }

    open func dataTask(with url: URL) -> URLSessionDataTask {
        dataTask(with: URLRequest(url: url))
    }

    open func dataTask(with request: URLRequest) -> URLSessionDataTask {
        register { URLSessionDataTask(session: self, request: request, identifier: $0, api: "URLSession.dataTask", completion: nil) }
    }

    open func downloadTask(with url: URL) -> URLSessionDownloadTask {
        downloadTask(with: URLRequest(url: url))
    }

    open func downloadTask(with request: URLRequest) -> URLSessionDownloadTask {
        register { URLSessionDownloadTask(session: self, request: request, identifier: $0, api: "URLSession.downloadTask", completion: nil) }
    }

    // MARK: async

    public func data(from url: URL, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (Data, URLResponse) {
        try await data(for: URLRequest(url: url), delegate: delegate)
    }

    public func data(for request: URLRequest, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (Data, URLResponse) {
        let box = ResultBox<(Data, URLResponse)>()
        let task = register {
            URLSessionDataTask(session: self, request: request, identifier: $0, api: "URLSession.data(for:)") { data, response, error in
                if let data, let response { box.succeed((data, response)) } else { box.fail(error ?? URLError(.unknown)) }
            }
        }
        return try await box.value(running: task)
    }

    public func upload(for request: URLRequest, from bodyData: Data, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (Data, URLResponse) {
        let box = ResultBox<(Data, URLResponse)>()
        var request = request
        request.httpBody = bodyData
        if request.httpMethod == nil || request.httpMethod == "GET" { request.httpMethod = "POST" }
        let task = register {
            URLSessionUploadTask(session: self, request: request, identifier: $0, api: "URLSession.upload(for:from:)") { data, response, error in
                if let data, let response { box.succeed((data, response)) } else { box.fail(error ?? URLError(.unknown)) }
            }
        }
        return try await box.value(running: task)
    }

    public func download(from url: URL, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (URL, URLResponse) {
        try await download(for: URLRequest(url: url), delegate: delegate)
    }

    /// As on iOS, the returned file is the extension's to move; it is not deleted when this returns (it goes
    /// with the run's working folder).
    public func download(for request: URLRequest, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (URL, URLResponse) {
        let box = ResultBox<(URL, URLResponse)>()
        let task = register {
            URLSessionDownloadTask(session: self, request: request, identifier: $0, api: "URLSession.download(for:)") { location, response, error in
                guard let location, let response else { return box.fail(error ?? URLError(.unknown)) }
                // Keep the file past the handler's return, which deletes the task's own .tmp.
                let kept = location.deletingPathExtension().appendingPathExtension("download.tmp")
                do {
                    try FileManager.default.moveItem(at: location, to: kept)
                    box.succeed((kept, response))
                } catch {
                    box.fail(URLError(.cannotMoveFile))
                }
            }
        }
        return try await box.value(running: task)
    }

    // MARK: Invalidation

    /// Lets running tasks finish, then invalidates; the shared session ignores it, as on iOS.
    open func finishTasksAndInvalidate() {
        guard !isShared else { return }
        state.withLock { $0.invalidated = true }
        reportInvalidationIfDone()
    }

    /// Cancels every task and invalidates; the shared session ignores it, as on iOS.
    open func invalidateAndCancel() {
        guard !isShared else { return }
        let running = state.withLock { state in
            state.invalidated = true
            return Array(state.tasks.values)
        }
        running.forEach { $0.cancel() }
        reportInvalidationIfDone()
    }

    open func getAllTasks(completionHandler: @escaping ([URLSessionTask]) -> Void) {
        completionHandler(state.withLock { Array($0.tasks.values) })
    }

    // MARK: Running tasks

    private func register<Task: URLSessionTask>(_ make: (Int) -> Task) -> Task {
        let (task, refused) = state.withLock { state in
            defer { state.nextIdentifier += 1 }
            let task = make(state.nextIdentifier)
            if !state.invalidated { state.tasks[task.taskIdentifier] = task }
            return (task, state.invalidated)
        }
        if refused {
            // iOS raises NSGenericException here and the extension crashes; say so, and fail the task instead.
            environment(for: task).record(.error(.mediaNetwork, "The extension created a \(task.api) on a URLSession it had already invalidated: iOS raises \"Task created in a session that has been invalidated\" and the extension crashes (the original content is shown). Create a new session."))
            task.cancel()
        }
        return task
    }

    /// The run a task belongs to: the one on the creating thread, else the session's, else none.
    private func environment(for task: URLSessionTask) -> ExtensionEnvironment {
        ExtensionEnvironment.current ?? environment ?? ExtensionEnvironment.standalone()
    }

    func start(_ task: URLSessionTask) {
        let environment = environment(for: task)
        environment.helper("nse.URLSession") {
            environment.withCurrent { task.run(in: environment) }
            self.finished(task)
        }
    }

    func perform(_ task: URLSessionTask, to file: URL?, in environment: ExtensionEnvironment) -> ExtensionHTTPResult {
        let request = ExtensionHTTPRequest(task.originalRequest ?? URLRequest(url: URL(fileURLWithPath: "/")), configuration: configuration, api: task.api)
        return environment.perform(request, to: file, cancellation: task.cancellation)
    }

    /// A data task without a handler: the delegate gets the response, the data, then the completion.
    func deliver(_ data: Data, response: URLResponse, for task: URLSessionDataTask) {
        callbacks.sync { [self] in
            guard let delegate = delegate as? any URLSessionDataDelegate else {
                (delegate as? any URLSessionTaskDelegate)?.urlSession(self, task: task, didCompleteWithError: nil)
                return
            }
            var disposition = ResponseDisposition.allow
            delegate.urlSession(self, dataTask: task, didReceive: response) { disposition = $0 }
            if disposition == .cancel {
                delegate.urlSession(self, task: task, didCompleteWithError: URLError(.cancelled))
                return
            }
            if !data.isEmpty { delegate.urlSession(self, dataTask: task, didReceive: data) }
            delegate.urlSession(self, task: task, didCompleteWithError: nil)
        }
    }

    /// A download task without a handler: `didFinishDownloadingTo`, then the completion.
    func deliver(file: URL, for task: URLSessionDownloadTask) {
        callbacks.sync { [self] in
            guard let delegate = delegate as? any URLSessionDownloadDelegate else {
                (delegate as? any URLSessionTaskDelegate)?.urlSession(self, task: task, didCompleteWithError: nil)
                return
            }
            let bytes = task.countOfBytesReceived
            delegate.urlSession(self, downloadTask: task, didWriteData: bytes, totalBytesWritten: bytes, totalBytesExpectedToWrite: bytes)
            delegate.urlSession(self, downloadTask: task, didFinishDownloadingTo: file)
            delegate.urlSession(self, task: task, didCompleteWithError: nil)
        }
    }

    func taskDidComplete(_ task: URLSessionTask, error: (any Error)?) {
        callbacks.sync { [self] in
            (delegate as? any URLSessionTaskDelegate)?.urlSession(self, task: task, didCompleteWithError: error)
        }
    }

    private func finished(_ task: URLSessionTask) {
        state.withLock { _ = $0.tasks.removeValue(forKey: task.taskIdentifier) }
        reportInvalidationIfDone()
    }

    /// After invalidation, once no task is left: the delegate hears `didBecomeInvalidWithError(nil)` once.
    private func reportInvalidationIfDone() {
        let report = state.withLock { state in
            guard state.invalidated, state.tasks.isEmpty, !state.invalidationReported else { return false }
            state.invalidationReported = true
            return true
        }
        guard report else { return }
        if let delegate { callbacks.sync { [self] in delegate.urlSession(self, didBecomeInvalidWithError: nil) } }
        state.withLock { $0.heldDelegate = nil }
    }
}

/// The session's delegate, the extension's own object (not Sendable): the lock only hands it over, and its methods
/// are called one at a time on the delegate queue, as on iOS.
private struct HeldDelegate: @unchecked Sendable {
    let delegate: any URLSessionDelegate
}

/// A session's delegate queue: its calls run one at a time, in order, on the executor, as on iOS's serial
/// delegate queue; the caller waits for its call to end. A delegate method that causes another delegate call
/// (invalidating the session) runs it at once, as a call from the queue's own thread does on iOS.
private final class DelegateQueue: Sendable {
    private let lane = ExecutorLane(width: 1)

    private static let key = "nse.delegate-queue"

    func sync(_ body: @escaping () -> Void) {
        let me = ObjectIdentifier(self)
        if (Thread.current.threadDictionary[Self.key] as? [ObjectIdentifier])?.contains(me) == true { return body() }
        let call = UncheckedCall(body: body)
        let done = Latch<Bool>()
        // The delegate runs in the caller's run, as the caller's own code would.
        let environment = ExtensionEnvironment.current
        lane.execute("nse.URLSession") {
            var inside = Thread.current.threadDictionary[Self.key] as? [ObjectIdentifier] ?? []
            inside.append(me)
            Thread.current.threadDictionary[Self.key] = inside
            if let environment { environment.withCurrent(call.body) } else { call.body() }
            inside.removeLast()
            Thread.current.threadDictionary[Self.key] = inside.isEmpty ? nil : inside
            done.open(true)
        }
        _ = done.wait()
    }

    /// The body may touch the caller's state, which is not Sendable: the caller blocks until the call has run,
    /// so only one thread uses it at a time.
    private struct UncheckedCall: @unchecked Sendable {
        let body: () -> Void
    }
}

/// The one result of an async call's task, waited for without blocking a thread.
private final class ResultBox<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiter: CheckedContinuation<Value, any Error>?
    }

    private let state = Mutex(State())

    func succeed(_ value: Value) { settle(.success(value)) }
    func fail(_ error: any Error) { settle(.failure(error)) }

    private func settle(_ outcome: Result<Value, any Error>) {
        let continuation: CheckedContinuation<Value, any Error>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        continuation?.resume(with: outcome)
    }

    /// Starts `task` and waits for its completion; cancelling the Swift task cancels it.
    func value(running task: URLSessionTask) async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<Value, any Error>? = state.withLock { state in
                    if state.result == nil { state.waiter = continuation }
                    return state.result
                }
                if let ready { continuation.resume(with: ready) }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }
}

extension ExtensionEnvironment {
    /// The run's `URLSession.shared`, made on first use.
    func withSharedSession(_ make: () -> URLSession) -> URLSession {
        sharedSession(orMake: make) as? URLSession ?? make()
    }
}
