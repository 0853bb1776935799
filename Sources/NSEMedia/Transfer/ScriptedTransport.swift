import Foundation
import NSEPush
import Synchronization

/// A transport that answers from a script, in memory: no socket, no thread, and time only as a `ManualClock`
/// says. Each hop is judged by the same `HopRules` as libcurl's transfers, so a unit test of a redirect, a size
/// limit or a spent budget tests the rule the CLI follows, in microseconds. The loopback tests stay the
/// integration tests of libcurl itself (time-outs mid-body, real headers, real sockets).
///
/// What it leaves out, being no network: a response arrives whole after its `duration` (a transfer whose
/// deadline comes first times out having received nothing), and a URL with nothing scripted fails as a network
/// error that names it.
package final class ScriptedTransport: MediaTransport {
    /// The responses by the URL each hop's transfer goes to (after the host mapping, as a server would see it).
    private let script: [String: ScriptedResponse]
    package let clock: ManualClock
    /// The hops made, in order: method and transfer URL.
    private let hops = Mutex<[(method: String, url: URL)]>([])

    package init(_ script: [String: ScriptedResponse], clock: ManualClock = ManualClock()) {
        self.script = script
        self.clock = clock
    }

    /// Every hop made so far, as "METHOD URL".
    package var requests: [String] {
        hops.withLock { $0.map { "\($0.method) \($0.url.absoluteString)" } }
    }

    package func start(
        _ request: TransferRequest, cancellations: [TransferCancellation],
        completion: @escaping @Sendable (Result<TransferResult, MediaFetchError>) -> Void
    ) {
        completion(cancellations.contains { $0.isCancelled } ? .failure(.cancelled) : run(request))
    }

    private func run(_ request: TransferRequest) -> Result<TransferResult, MediaFetchError> {
        var rules = HopRules(request)
        while true {
            guard rules.millisecondsLeft(at: clock.now) != nil else { return .failure(.timeout(received: 0)) }
            let url = rules.transferURL
            hops.withLock { $0.append((rules.method, url)) }
            guard let response = script[url.absoluteString] else {
                return .failure(.network("nothing is scripted for \(url.absoluteString)"))
            }
            guard clock.now + response.duration <= request.deadline else {
                clock.advance(to: request.deadline)
                return .failure(.timeout(received: 0))
            }
            clock.advance(by: response.duration)
            if let failure = response.failure { return .failure(failure) }
            var headers: [String: String] = [:]
            for field in response.headers { headers[field.name.lowercased()] = field.value.trimmingCharacters(in: .whitespaces) }
            guard response.headerBytes <= HopRules.maxHeaderBytes else { return .failure(.headersTooLarge(limit: HopRules.maxHeaderBytes)) }
            if let location = HopRules.redirectLocation(status: response.status, headers: headers) {
                if let refusal = rules.follow(location, status: response.status) { return .failure(refusal) }
                continue
            }
            let head = rules.head(status: response.status, headers: headers)
            let limit = request.sizeLimit(head)
            if let refusal = HopRules.announcedLengthRefusal(headers: headers, limit: limit) { return .failure(refusal) }
            // A HEAD response has no body; a Content-Length shorter than the bytes ends the body where it says.
            let declared = HopRules.declaredLength(headers)
            let body = rules.method == "HEAD" ? [] : Array(response.body.prefix(declared ?? response.body.count))
            if let refusal = HopRules.bodyRefusal(received: 0, adding: body.count, limit: limit, headers: headers) { return .failure(refusal) }
            if rules.method != "HEAD", let declared, declared > body.count {
                return .failure(HopRules.truncation(headers: headers, received: body.count))
            }
            return deliver(body, head: head, redirects: rules.redirects, to: request.destination)
        }
    }

    private func deliver(_ body: [UInt8], head: ResponseHead, redirects: Int, to destination: URL?) -> Result<TransferResult, MediaFetchError> {
        if let destination {
            do {
                try Data(body).write(to: destination)
            } catch {
                return .failure(.cannotSave("cannot create \(destination.path): \(error.localizedDescription)"))
            }
        }
        let hasher = SHA256()
        hasher.update(body)
        return .success(TransferResult(
            head: head, bytes: body.count, sha256: hasher.finalizeHex(), prefix: Array(body.prefix(MediaFormat.sniffLength)),
            redirects: redirects, body: destination == nil ? Data(body) : nil))
    }
}

/// One scripted answer of `ScriptedTransport`.
package struct ScriptedResponse: Sendable {
    package var status: Int
    /// As sent, in order; a name sent twice keeps its last value, as libcurl's transfers read them.
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]
    /// How long the server takes to send all of it: the clock moves on by as much.
    package var duration: Duration
    /// What the connection fails with instead of answering (a name that does not resolve, a reset).
    package var failure: MediaFetchError?

    package init(
        status: Int = 200, headers: [(name: String, value: String)] = [], body: [UInt8] = [], duration: Duration = .zero,
        failure: MediaFetchError? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.duration = duration
        self.failure = failure
    }

    /// A 200 with `body`, its Content-Type and its true Content-Length.
    package static func ok(_ body: [UInt8], contentType: String) -> ScriptedResponse {
        ScriptedResponse(headers: [("Content-Type", contentType), ("Content-Length", "\(body.count)")], body: body)
    }

    package static func redirect(to location: String, status: Int = 302) -> ScriptedResponse {
        ScriptedResponse(status: status, headers: [("Location", location), ("Content-Length", "0")])
    }

    /// The bytes of the header section on the wire: the status line, each field and the blank line.
    var headerBytes: Int {
        "HTTP/1.1 \(status) \r\n".utf8.count + headers.reduce(2) { $0 + $1.name.utf8.count + 2 + $1.value.utf8.count + 2 }
    }
}
