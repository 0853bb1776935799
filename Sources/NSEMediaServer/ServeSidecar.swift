import Foundation
// The push model's JSON value: booleans stay booleans and 1.5 is not an integer, so a sidecar is checked by hand.
import NSEPush

/// How a sample misbehaves, read from `NAME.serve.json` next to `NAME` in a media directory.
///
/// Every key is optional; an unknown key, a wrong type, or a key that does not apply to the chosen body is
/// an error, so a typo cannot silently turn a hostile sample into a well-behaved one.
/// docs/sample-media-server.md describes the format with examples.
struct ServeSidecar: Sendable {
    /// What the body does.
    enum Behaviour: String, Sendable, CaseIterable {
        case file, endless, stall, trickle, truncate
        case redirectLoop = "redirect-loop"
    }

    static let fileSuffix = ".serve.json"

    var status: Int?
    /// Header fields to send, sorted by name; they override Content-Type and anything else.
    var headers: [(name: String, value: String)] = []
    var contentType: String?
    var delayMs = 0
    var body = Behaviour.file
    var trickleBytesPerChunk = 1024
    var trickleIntervalMs = 100
    var declaredLength: Int?
    var padTo: Int?
}

/// A sidecar that cannot be used, with a message that names the key and says what is expected.
struct SidecarError: Error, Sendable {
    let message: String
}

extension ServeSidecar {
    private static let keys = [
        "status", "headers", "contentType", "delayMs", "body",
        "trickleBytesPerChunk", "trickleIntervalMs", "declaredLength", "padTo",
    ]

    init(contentsOf path: String) throws(SidecarError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SidecarError(message: "it cannot be read")
        }
        try self.init(parsing: data)
    }

    init(parsing data: Data) throws(SidecarError) {
        let object: [String: JSONValue]
        do {
            object = try JSONDecoder().decode([String: JSONValue].self, from: data)
        } catch {
            throw SidecarError(message: "it is not a JSON object (\(error))")
        }
        if let unknown = object.keys.sorted().first(where: { !Self.keys.contains($0) }) {
            throw SidecarError(message: "unknown key \"\(unknown)\"; the keys are \(Self.keys.joined(separator: ", "))")
        }

        if let value = object["status"] {
            let status = try Self.integer(value, key: "status", in: 100...599)
            self.status = status
        }
        if let value = object["headers"] {
            guard case .object(let fields) = value else {
                throw SidecarError(message: "\"headers\" must be an object of string values")
            }
            for name in fields.keys.sorted() {
                guard case .string(let text) = fields[name]!, !name.isEmpty, name.utf8.allSatisfy(isTokenByte),
                      !text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 })
                else {
                    throw SidecarError(message: "header \"\(name)\" must be a valid field name with a single-line string value")
                }
                headers.append((name, text))
            }
        }
        if let value = object["contentType"] {
            guard case .string(let text) = value else { throw SidecarError(message: "\"contentType\" must be a string") }
            contentType = text
        }
        if let value = object["delayMs"] {
            delayMs = try Self.integer(value, key: "delayMs", in: 0...600_000)
        }
        if let value = object["body"] {
            guard case .string(let text) = value, let behaviour = Behaviour(rawValue: text) else {
                let names = Behaviour.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                throw SidecarError(message: "\"body\" must be one of \(names)")
            }
            body = behaviour
        }
        if let value = object["trickleBytesPerChunk"] {
            trickleBytesPerChunk = try Self.integer(value, key: "trickleBytesPerChunk", in: 1...(16 * 1024 * 1024))
        }
        if let value = object["trickleIntervalMs"] {
            trickleIntervalMs = try Self.integer(value, key: "trickleIntervalMs", in: 0...600_000)
        }
        if let value = object["declaredLength"] {
            declaredLength = try Self.integer(value, key: "declaredLength", in: 0...Int(Int32.max))
        }
        if let value = object["padTo"] {
            padTo = try Self.integer(value, key: "padTo", in: 0...Int(Int32.max))
        }
        // Checked after every key is read, since "body" may come after the keys that depend on it.
        try checkApplicability(object)
    }

    private func checkApplicability(_ object: [String: JSONValue]) throws(SidecarError) {
        let applies: [String: [Behaviour]] = [
            "trickleBytesPerChunk": [.trickle], "trickleIntervalMs": [.trickle],
            "declaredLength": [.truncate], "padTo": [.file, .trickle, .truncate],
        ]
        for (key, bodies) in applies.sorted(by: { $0.key < $1.key }) where object[key] != nil && !bodies.contains(body) {
            let names = bodies.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
            throw SidecarError(message: "\"\(key)\" only applies to body \(names), not \"\(body.rawValue)\"")
        }
    }

    private static func integer(
        _ value: JSONValue, key: String, in range: ClosedRange<Int>
    ) throws(SidecarError) -> Int {
        guard case .int(let number) = value, range.contains(number) else {
            throw SidecarError(message: "\"\(key)\" must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
