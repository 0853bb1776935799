import Foundation

/// Faults on demand: the next N requests to APNs or FCM get a 429, 500 or 503 instead of their answer, so a
/// backend's retry and back-off are testable. Set through the control API; not journaled (a restart has none).
actor Faults {
    enum Service: String, Sendable { case apns, fcm }

    struct Plan: Sendable {
        var status: Int
        var remaining: Int
        /// Seconds for FCM's `Retry-After` header.
        var retryAfter: Int?
    }

    static let statuses: Set<Int> = [429, 500, 503]
    private var plans: [Service: Plan] = [:]

    func set(_ plan: Plan, for service: Service) {
        plans[service] = plan
    }

    func clear() {
        plans = [:]
    }

    /// The fault this request gets, if one is planned (and counts it).
    func next(for service: Service) -> Plan? {
        guard var plan = plans[service], plan.remaining > 0 else { return nil }
        plan.remaining -= 1
        plans[service] = plan.remaining > 0 ? plan : nil
        return plan
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

    /// FCM's answer: QUOTA_EXCEEDED (RESOURCE_EXHAUSTED), INTERNAL or UNAVAILABLE, with Retry-After for 429 and 503.
    static func fcmAnswer(_ plan: Plan) -> ServerResponse {
        var answer = switch plan.status {
        case 429: FCMError.body(429, "RESOURCE_EXHAUSTED", "Quota exceeded for sending messages.", errorCode: "QUOTA_EXCEEDED", violations: [])
        case 500: FCMError.internalError()
        default: FCMError.body(503, "UNAVAILABLE", "The service is currently unavailable.", errorCode: "UNAVAILABLE", violations: [])
        }
        if plan.status != 500, let retryAfter = plan.retryAfter {
            answer.headers.append((name: "retry-after", value: String(retryAfter)))
        }
        return answer
    }
}
