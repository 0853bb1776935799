import Foundation
import Synchronization

/// Faults on demand: the next N requests to APNs or FCM, or a share of them, get a 429, 500 or 503 (FCM also a 401,
/// THIRD_PARTY_AUTH_ERROR) instead of their answer, so a backend's retry, back-off and error handling are testable.
/// Set through the control API; not journaled (a restart
/// has none). A lock, not an actor: every APNs and FCM request asks it first, and a hop to an actor and back cost
/// more than the question.
final class Faults: Sendable {
    enum Service: String, Sendable { case apns, fcm }

    struct Plan: Sendable {
        var status: Int
        /// Seconds for FCM's `Retry-After` header.
        var retryAfter: Int?
        var selection: Selection

        enum Selection: Sendable {
            /// The next `remaining` requests.
            case next(remaining: Int)
            /// `percent` of every 100 requests, at places a seeded shuffle picks.
            case share(ShareDraw)
        }
    }

    static let statuses: Set<Int> = [429, 500, 503]

    /// Whether a plan for `service` may give `status`: 429, 500 or 503 to either; 401 to FCM only, whose
    /// THIRD_PARTY_AUTH_ERROR (APNs refused the project's key) the emulator has no other way to give.
    static func offers(_ status: Int, for service: Service) -> Bool {
        statuses.contains(status) || service == .fcm && status == 401
    }

    private let plans = Mutex<[Service: Plan]>([:])

    func set(_ plan: Plan, for service: Service) {
        plans.withLock { $0[service] = plan }
    }

    func clear() {
        plans.withLock { $0 = [:] }
    }

    /// The fault this request gets, if one is planned (and counts it).
    func next(for service: Service) -> Plan? {
        plans.withLock { plans in
            guard var plan = plans[service] else { return nil }
            switch plan.selection {
            case .next(let remaining):
                guard remaining > 0 else { return nil }
                plan.selection = .next(remaining: remaining - 1)
                plans[service] = remaining > 1 ? plan : nil
                return plan
            case .share(var draw):
                let faulted = draw.next()
                plan.selection = .share(draw)
                plans[service] = plan
                return faulted ? plan : nil
            }
        }
    }

    /// APNs's answer for the fault: TooManyRequests, InternalServerError or ServiceUnavailable.
    static func apnsAnswer(_ plan: Plan, apnsID: String) -> ServerResponse {
        let reason = switch plan.status {
        case 429: "TooManyRequests"
        case 500: "InternalServerError"
        default: "ServiceUnavailable"
        }
        return .json(plan.status, ["reason": reason], headers: [(name: "apns-id", value: apnsID)])
    }

    /// FCM's answer: QUOTA_EXCEEDED (RESOURCE_EXHAUSTED), INTERNAL or UNAVAILABLE, with Retry-After for 429 and 503;
    /// for 401, THIRD_PARTY_AUTH_ERROR with APNs's 403 InvalidProviderToken, as when APNs refuses the APNs key
    /// uploaded to the Firebase project.
    static func fcmAnswer(_ plan: Plan) -> ServerResponse {
        var answer = switch plan.status {
        case 401: FCMError.apnsRefusal(.invalidProviderToken, violations: [])
        case 429: FCMError.body(429, "RESOURCE_EXHAUSTED", "Quota exceeded for sending messages.", errorCode: "QUOTA_EXCEEDED", violations: [])
        case 500: FCMError.internalError()
        default: FCMError.body(503, "UNAVAILABLE", "The service is currently unavailable.", errorCode: "UNAVAILABLE", violations: [])
        }
        if plan.status == 429 || plan.status == 503, let retryAfter = plan.retryAfter {
            answer.headers.append((name: "retry-after", value: String(retryAfter)))
        }
        return answer
    }
}

/// Which requests a share of faults hits: in each block of 100 requests counted from the plan's start (requests 1
/// to 100, 101 to 200...), exactly `percent` of them, at places a Fisher-Yates shuffle picks with a SplitMix64
/// generator seeded by `seed`. So a test asserts exact counts, the places look random to the backend, and the same
/// seed gives the same places (a failing test reruns the same way).
struct ShareDraw: Sendable {
    static let block = 100
    let percent: Int
    let seed: UInt64
    private var state: UInt64
    private var faulted: [Bool] = []
    private var position = ShareDraw.block

    init(percent: Int, seed: UInt64) {
        self.percent = percent
        self.seed = seed
        state = seed
    }

    /// Whether the next request gets the fault.
    mutating func next() -> Bool {
        if position == Self.block {
            faulted = (0..<Self.block).map { $0 < percent }
            var index = Self.block - 1
            while index > 0 {
                let other = Int(nextRandom() % UInt64(index + 1))
                faulted.swapAt(index, other)
                index -= 1
            }
            position = 0
        }
        defer { position += 1 }
        return faulted[position]
    }

    /// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014): written out
    /// here so the places never change with the standard library's generator.
    private mutating func nextRandom() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
