import Foundation

/// Encodes a value to the bytes Foundation's `JSONEncoder` writes with `outputFormatting = [.sortedKeys,
/// .withoutEscapingSlashes]` (and `.prettyPrinted` when `prettyPrinted`), byte for byte, several times faster.
///
/// Why: `nse serve` journals every delivery's `ProcessResult` as JSON, and `JSONEncoder` cost a sixth of the server's
/// CPU: it builds a tree of class objects and dictionaries, then sorts and writes it. This encoder keeps one flat
/// list of nodes (each scalar already written as JSON text) and writes the text in one pass, sorting each object's
/// keys there.
///
/// The rules are swift-foundation's (Sources/FoundationEssentials/JSON/JSONEncoder.swift and JSONWriter.swift), the
/// `JSONEncoder` of Swift on Linux: keys sorted by their UTF-8 bytes (not Darwin's `NSString` comparison); strings
/// escaped as `JSONStringLiteral` says; integers in decimal; a `Double` or `Float` as its `description` without a
/// trailing `.0`, and an infinity or NaN an error; a key encoded twice keeps its last value; a value that encodes
/// nothing is `{}` (at the top level an error); a `URL` is its `absoluteString`, a `Decimal` its `description`,
/// `Data` its Base64 text and a `Date` its seconds since 2001 (JSONEncoder's default strategies); containers nested
/// deeper than 512 an error. Pretty printing indents by two spaces and writes `"key" : value`, as JSONEncoder does.
///
/// ```swift
/// let line = try SortedJSONEncoder().encode(result)   // what JSONEncoder([.sortedKeys, .withoutEscapingSlashes]) writes
/// ```
package struct SortedJSONEncoder: Sendable {
    /// `.prettyPrinted`: one member or element a line, indented by two spaces a level.
    package var prettyPrinted: Bool

    package init(prettyPrinted: Bool = false) {
        self.prettyPrinted = prettyPrinted
    }

    package func encode<Value: Encodable>(_ value: Value) throws -> Data {
        Data(try encodeBytes(value))
    }

    package func encodeBytes<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let document = JSONDocument()
        try document.encode(value, into: JSONDocument.root)
        guard document.nodes[JSONDocument.root].kind != .pending else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: [], debugDescription: "Top-level \(Value.self) did not encode any values."))
        }
        var writer = JSONDocument.Writer(document, prettyPrinted: prettyPrinted)
        do {
            try writer.write(JSONDocument.root, depth: 0)
        } catch is JSONDocument.TooDeep {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: [], debugDescription: "Unable to encode the given top-level value to JSON."))
        }
        return writer.output
    }
}

/// The value being encoded: a flat list of nodes (objects, arrays and scalars) linked to their parents and
/// siblings, object members' keys as UTF-8 in `keys`, scalars as their JSON text in `scalars`. Encoders and
/// containers are a reference to the document and a node's index, small enough to need no allocation of their own.
final class JSONDocument {
    enum Kind: UInt8 {
        /// Nothing encoded yet: written as `{}`, as JSONEncoder writes a value that encodes nothing.
        case pending
        case scalar
        case object
        case array
    }

    struct Node {
        var kind: Kind
        var parent: Int
        /// A member's key in `keys` (empty for an array's element and the root).
        var keyStart: Int
        var keyEnd: Int
        /// A scalar's JSON text in `scalars`; a container's first and last child (-1 when none).
        var first: Int
        var last: Int
        var next: Int
        var children: Int
    }

    static let root = 0
    static let maximumDepth = 512

    struct TooDeep: Error {}

    // Unchecked: one encoding's document is used by one thread, and no access to these outlives a call that could
    // reach another (a value's `encode(to:)` runs with none held). The runtime's checks cost a sixth of the time.
    @exclusivity(unchecked) var nodes: [Node] = []
    @exclusivity(unchecked) var keys: [UInt8] = []
    @exclusivity(unchecked) var scalars: [UInt8] = []

    init() {
        nodes.reserveCapacity(64)
        keys.reserveCapacity(512)
        scalars.reserveCapacity(1024)
        nodes.append(Node(kind: .pending, parent: -1, keyStart: 0, keyEnd: 0, first: -1, last: -1, next: -1, children: 0))
    }

    // MARK: Building

    /// A new pending node after `parent`'s last child; `key` for an object's member.
    func appendChild(of parent: Int, key: String?) -> Int {
        let index = nodes.count
        let keyStart = keys.count
        if let key { keys.append(contentsOf: key.utf8) }
        nodes.append(Node(kind: .pending, parent: parent, keyStart: keyStart, keyEnd: keys.count, first: -1, last: -1, next: -1, children: 0))
        nodes.withUnsafeMutableBufferPointer { nodes in
            let last = nodes[parent].last
            if last >= 0 { nodes[last].next = index } else { nodes[parent].first = index }
            nodes[parent].last = index
            nodes[parent].children += 1
        }
        return index
    }

    /// The member `key` of `parent` for a nested container of `kind`: the one already there when the last member
    /// of that key is such a container (JSONEncoder hands the same container back), else a new one.
    func nestedChild(of parent: Int, key: String, kind: Kind) -> Int {
        var found = -1
        var child = nodes[parent].first
        while child >= 0 {
            let node = nodes[child]
            // Equal as Strings, as JSONEncoder's dictionary of members finds them.
            if String(decoding: keys[node.keyStart..<node.keyEnd], as: UTF8.self) == key { found = child }
            child = node.next
        }
        if found >= 0, nodes[found].kind == kind { return found }
        let index = appendChild(of: parent, key: key)
        nodes[index].kind = kind
        return index
    }

    /// Makes `node` a container of `kind`: a pending node becomes one; one already of that kind stays (a type may ask
    /// for its container twice, as `ProcessResult` does).
    func makeContainer(_ node: Int, kind: Kind) {
        switch nodes[node].kind {
        case .pending: nodes[node].kind = kind
        case kind: break
        default: preconditionFailure("Attempt to push a new \(kind) container when a value was already encoded at this path.")
        }
    }

    /// Starts a scalar in `node`; false when the node is already a container (whose contents JSONEncoder keeps).
    private func startScalar(_ node: Int) -> Bool {
        switch nodes[node].kind {
        case .pending: return true
        case .scalar: preconditionFailure("Attempt to encode a value through a single value container when a value was already encoded.")
        case .object, .array: return false
        }
    }

    private func finishScalar(_ node: Int, from start: Int) {
        nodes[node].kind = .scalar
        nodes[node].first = start
        nodes[node].last = scalars.count
    }

    func setNull(_ node: Int) {
        guard startScalar(node) else { return }
        let start = scalars.count
        scalars.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        finishScalar(node, from: start)
    }

    func setBool(_ node: Int, _ value: Bool) {
        guard startScalar(node) else { return }
        let start = scalars.count
        if value { scalars.append(contentsOf: [0x74, 0x72, 0x75, 0x65]) } else { scalars.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65]) }
        finishScalar(node, from: start)
    }

    func setString(_ node: Int, _ value: String) {
        guard startScalar(node) else { return }
        let start = scalars.count
        JSONStringLiteral.append(value, to: &scalars)
        finishScalar(node, from: start)
    }

    /// An integer in decimal, as its `description` reads.
    func setInteger<Integer: FixedWidthInteger>(_ node: Int, _ value: Integer) {
        guard startScalar(node) else { return }
        let start = scalars.count
        if Integer.bitWidth > 64 {
            scalars.append(contentsOf: value.description.utf8)
        } else {
            if value < 0 { scalars.append(UInt8(ascii: "-")) }
            var magnitude = UInt64(truncatingIfNeeded: value.magnitude)
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
                var position = 20
                repeat {
                    position -= 1
                    digits[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                    magnitude /= 10
                } while magnitude > 0
                scalars.append(contentsOf: UnsafeBufferPointer(rebasing: digits[position..<20]))
            }
        }
        finishScalar(node, from: start)
    }

    /// A finite `Double` or `Float` as its `description` without a trailing `.0` (`1`, `1.5`, `1e-07`, `-0`).
    func setFloatingPoint<Number: BinaryFloatingPoint & CustomStringConvertible>(_ node: Int, _ value: Number) {
        guard startScalar(node) else { return }
        let start = scalars.count
        scalars.append(contentsOf: value.description.utf8)
        let end = scalars.count
        if end - start >= 2, scalars[end - 2] == UInt8(ascii: "."), scalars[end - 1] == UInt8(ascii: "0") {
            scalars.removeLast(2)
        }
        finishScalar(node, from: start)
    }

    /// An infinity or NaN throws, as JSONEncoder's default `nonConformingFloatEncodingStrategy` does, before anything
    /// is added (a caller that goes on after the error finds the container as it was).
    static func checkFinite<Number: BinaryFloatingPoint>(_ value: Number, at path: @autoclosure () -> [any CodingKey]) throws {
        guard !value.isFinite else { return }
        throw EncodingError.invalidValue(value, EncodingError.Context(
            codingPath: path(), debugDescription: "Unable to encode \(Number.self).\(value) directly in JSON."))
    }

    /// Removes `child`, the last child of `parent`, after its encoding threw: JSONEncoder adds nothing for a value
    /// whose encoding fails, and a caller may go on. `previous` is the parent's last child before it.
    func removeLastChild(_ child: Int, of parent: Int, previous: Int) {
        guard nodes[parent].last == child else { return }
        if previous >= 0 { nodes[previous].next = -1 } else { nodes[parent].first = -1 }
        nodes[parent].last = previous
        nodes[parent].children -= 1
    }

    /// Encodes `value` into `node`: the common scalars straight away, the types JSONEncoder writes its own way, and
    /// everything else through its own `encode(to:)`.
    func encode<Value: Encodable>(_ value: Value, into node: Int) throws {
        if Value.self == String.self {
            setString(node, Self.cast(value, to: String.self))
        } else if Value.self == Int.self {
            setInteger(node, Self.cast(value, to: Int.self))
        } else if Value.self == Double.self {
            let number = Self.cast(value, to: Double.self)
            try Self.checkFinite(number, at: codingPath(of: node))
            setFloatingPoint(node, number)
        } else if Value.self == Bool.self {
            setBool(node, Self.cast(value, to: Bool.self))
        } else if Value.self == JSONValue.self {
            try setJSONValue(node, Self.cast(value, to: JSONValue.self))
        } else if Value.self == [String: JSONValue].self {
            try setObject(node, Self.cast(value, to: [String: JSONValue].self)) { try setJSONValue($0, $1) }
        } else if Value.self == [String: Double].self {
            try setObject(node, Self.cast(value, to: [String: Double].self)) { try setFiniteFloatingPoint($0, $1) }
        } else if Value.self == [String: String].self {
            try setObject(node, Self.cast(value, to: [String: String].self)) { setString($0, $1) }
        } else if Value.self == [String].self {
            makeContainer(node, kind: .array)
            for text in Self.cast(value, to: [String].self) { setString(appendChild(of: node, key: nil), text) }
        } else if Value.self == Data.self {
            setString(node, Self.cast(value, to: Data.self).base64EncodedString())
        } else if Value.self == URL.self {
            setString(node, Self.cast(value, to: URL.self).absoluteString)
        } else if Value.self == Decimal.self {
            guard startScalar(node) else { return }
            let start = scalars.count
            scalars.append(contentsOf: Self.cast(value, to: Decimal.self).description.utf8)
            finishScalar(node, from: start)
        } else {
            try value.encode(to: NodeEncoder(document: self, node: node))
        }
    }

    /// A `Double` or `Float` in `node`, or the error for an infinity or NaN.
    private func setFiniteFloatingPoint<Number: BinaryFloatingPoint & CustomStringConvertible>(_ node: Int, _ value: Number) throws {
        try Self.checkFinite(value, at: codingPath(of: node))
        setFloatingPoint(node, value)
    }

    /// A dictionary with `String` keys, as `Dictionary.encode(to:)` encodes it: an object of its members.
    private func setObject<Value>(_ node: Int, _ members: [String: Value], _ set: (Int, Value) throws -> Void) throws {
        makeContainer(node, kind: .object)
        for (key, value) in members { try set(appendChild(of: node, key: key), value) }
    }

    /// A `JSONValue` as its `encode(to:)` encodes it, without going through `Encodable` for each value.
    private func setJSONValue(_ node: Int, _ value: JSONValue) throws {
        switch value {
        case .null: setNull(node)
        case .bool(let flag): setBool(node, flag)
        case .int(let number): setInteger(node, number)
        case .double(let number): try setFiniteFloatingPoint(node, number)
        case .string(let text): setString(node, text)
        case .array(let items):
            makeContainer(node, kind: .array)
            for item in items { try setJSONValue(appendChild(of: node, key: nil), item) }
        case .object(let members):
            try setObject(node, members) { try setJSONValue($0, $1) }
        }
    }

    /// `value` as the type it is known to be (`Value.self == Target.self`), without a dynamic cast.
    @inline(__always)
    private static func cast<Value, Target>(_ value: Value, to target: Target.Type) -> Target {
        withUnsafePointer(to: value) { $0.withMemoryRebound(to: Target.self, capacity: 1) { $0.pointee } }
    }

    /// The keys from the root to `node`, for errors: members by their key, elements as JSONEncoder names them
    /// ("Index 2").
    func codingPath(of node: Int) -> [any CodingKey] {
        var path: [any CodingKey] = []
        var current = node
        while current > Self.root {
            let parent = nodes[current].parent
            if nodes[parent].kind == .array {
                var position = 0
                var sibling = nodes[parent].first
                while sibling >= 0, sibling != current {
                    position += 1
                    sibling = nodes[sibling].next
                }
                path.append(PathKey(index: position))
            } else {
                path.append(PathKey(stringValue: String(decoding: keys[nodes[current].keyStart..<nodes[current].keyEnd], as: UTF8.self)))
            }
            current = parent
        }
        return path.reversed()
    }

    struct PathKey: CodingKey {
        var stringValue: String
        var intValue: Int?

        init(stringValue: String) {
            self.stringValue = stringValue
        }

        init(intValue: Int) {
            stringValue = "\(intValue)"
            self.intValue = intValue
        }

        init(index: Int) {
            stringValue = "Index \(index)"
            intValue = index
        }
    }

    // MARK: Writing

    /// Writes the document as JSON text, each object's members sorted by their keys' UTF-8 bytes.
    struct Writer {
        private let nodes: [Node]
        private let keys: [UInt8]
        private let scalars: [UInt8]
        private let prettyPrinted: Bool
        private(set) var output: [UInt8] = []
        private var indent = 0
        /// The members of the objects being written, innermost last: (node, key start, key end).
        private var members: [(node: Int, keyStart: Int, keyEnd: Int)] = []

        init(_ document: JSONDocument, prettyPrinted: Bool) {
            nodes = document.nodes
            keys = document.keys
            scalars = document.scalars
            self.prettyPrinted = prettyPrinted
            output.reserveCapacity(scalars.count + keys.count + 4 * nodes.count + (prettyPrinted ? 16 * nodes.count : 0))
            members.reserveCapacity(min(nodes.count, 64))
        }

        mutating func write(_ index: Int, depth: Int) throws {
            let node = nodes[index]
            switch node.kind {
            case .scalar:
                scalars.withUnsafeBufferPointer { output.append(contentsOf: UnsafeBufferPointer(rebasing: $0[node.first..<node.last])) }
            case .pending, .object:
                try writeObject(node, depth: depth + 1)
            case .array:
                try writeArray(node, depth: depth + 1)
            }
        }

        private mutating func writeArray(_ node: Node, depth: Int) throws {
            guard depth < JSONDocument.maximumDepth else { throw TooDeep() }
            output.append(UInt8(ascii: "["))
            if prettyPrinted {
                output.append(UInt8(ascii: "\n"))
                indent += 1
            }
            var child = node.first
            while child >= 0 {
                if child != node.first { output.append(UInt8(ascii: ",")) }
                if prettyPrinted {
                    if child != node.first { output.append(UInt8(ascii: "\n")) }
                    writeIndent()
                }
                try write(child, depth: depth)
                child = nodes[child].next
            }
            if prettyPrinted {
                output.append(UInt8(ascii: "\n"))
                indent -= 1
                writeIndent()
            }
            output.append(UInt8(ascii: "]"))
        }

        private mutating func writeObject(_ node: Node, depth: Int) throws {
            guard depth < JSONDocument.maximumDepth else { throw TooDeep() }
            let base = members.count
            var child = node.first
            while child >= 0 {
                members.append((child, nodes[child].keyStart, nodes[child].keyEnd))
                child = nodes[child].next
            }
            let end = members.count
            sortMembers(base..<end)
            output.append(UInt8(ascii: "{"))
            if prettyPrinted {
                output.append(UInt8(ascii: "\n"))
                indent += 1
                if end > base { writeIndent() }
            }
            // A key encoded twice keeps its last value. Keys are a Swift dictionary's in JSONEncoder, so two keys that
            // differ in bytes but are equal as Strings ("\u{E9}" and "e\u{301}", "K" and the Kelvin sign) are one
            // member too: the first one's key and place, the last one's value. Such keys are never ASCII alone.
            let values = hasNonASCIIKey(base..<end) ? equivalentKeyValues(base..<end) : nil
            var first = true
            for position in base..<end {
                let member = members[position]
                let value: Int
                if let values {
                    value = values[position - base]
                    if value < 0 { continue }
                } else {
                    // Equal keys are next to each other, in the order they were encoded: the last one is written.
                    if position + 1 < end, sameKey(member, members[position + 1]) { continue }
                    value = member.node
                }
                if !first {
                    output.append(UInt8(ascii: ","))
                    if prettyPrinted {
                        output.append(UInt8(ascii: "\n"))
                        writeIndent()
                    }
                }
                first = false
                output.append(UInt8(ascii: "\""))
                keys.withUnsafeBufferPointer {
                    JSONStringLiteral.appendContents(UnsafeBufferPointer(rebasing: $0[member.keyStart..<member.keyEnd]), to: &output)
                }
                output.append(UInt8(ascii: "\""))
                if prettyPrinted {
                    output.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: " ")])
                } else {
                    output.append(UInt8(ascii: ":"))
                }
                try write(value, depth: depth)
            }
            members.removeLast(end - base)
            if prettyPrinted {
                output.append(UInt8(ascii: "\n"))
                indent -= 1
                writeIndent()
            }
            output.append(UInt8(ascii: "}"))
        }

        private mutating func writeIndent() {
            for _ in 0..<indent {
                output.append(UInt8(ascii: " "))
                output.append(UInt8(ascii: " "))
            }
        }

        private func hasNonASCIIKey(_ range: Range<Int>) -> Bool {
            keys.withUnsafeBufferPointer { keys in
                members[range].contains { member in keys[member.keyStart..<member.keyEnd].contains { $0 >= 0x80 } }
            }
        }

        /// For each member in `range` (sorted): the node to write as its value, or -1 when another member with an
        /// equal key (as Strings) stands for it. The member first encoded gives the key, the last the value.
        private func equivalentKeyValues(_ range: Range<Int>) -> [Int] {
            var values = [Int](repeating: -1, count: range.count)
            var groups: [String: (first: Int, last: Int)] = [:]
            for position in range {
                let member = members[position]
                let key = String(decoding: keys[member.keyStart..<member.keyEnd], as: UTF8.self)
                if let group = groups[key] {
                    let firstNode = members[group.first].node
                    groups[key] = (member.node < firstNode ? position : group.first, max(group.last, member.node))
                } else {
                    groups[key] = (position, member.node)
                }
            }
            for group in groups.values { values[group.first - range.lowerBound] = group.last }
            return values
        }

        private func sameKey(_ a: (node: Int, keyStart: Int, keyEnd: Int), _ b: (node: Int, keyStart: Int, keyEnd: Int)) -> Bool {
            keys[a.keyStart..<a.keyEnd].elementsEqual(keys[b.keyStart..<b.keyEnd])
        }

        /// Sorts the members in `range` by their keys' UTF-8 bytes (swift-foundation's `.sortedKeys` off Darwin), equal
        /// keys in the order they were encoded. Insertion sort: objects are small, and often encoded nearly sorted.
        private mutating func sortMembers(_ range: Range<Int>) {
            guard range.count > 1 else { return }
            keys.withUnsafeBufferPointer { keys in
                members.withUnsafeMutableBufferPointer { members in
                    func precedes(_ a: (node: Int, keyStart: Int, keyEnd: Int), _ b: (node: Int, keyStart: Int, keyEnd: Int)) -> Bool {
                        let lengthA = a.keyEnd - a.keyStart
                        let lengthB = b.keyEnd - b.keyStart
                        let common = min(lengthA, lengthB)
                        if common > 0, let baseAddress = keys.baseAddress {
                            let order = memcmp(baseAddress + a.keyStart, baseAddress + b.keyStart, common)
                            if order != 0 { return order < 0 }
                        }
                        if lengthA != lengthB { return lengthA < lengthB }
                        return a.node < b.node
                    }
                    if range.count > 32 {
                        members[range].sort(by: precedes)
                        return
                    }
                    for position in (range.lowerBound + 1)..<range.upperBound {
                        let member = members[position]
                        var hole = position
                        while hole > range.lowerBound, precedes(member, members[hole - 1]) {
                            members[hole] = members[hole - 1]
                            hole -= 1
                        }
                        members[hole] = member
                    }
                }
            }
        }
    }
}

/// The encoder a value's `encode(to:)` is handed: a node of the document.
struct NodeEncoder: Encoder {
    let document: JSONDocument
    let node: Int

    var codingPath: [any CodingKey] { document.codingPath(of: node) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        document.makeContainer(node, kind: .object)
        return KeyedEncodingContainer(ObjectContainer<Key>(document: document, node: node))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        document.makeContainer(node, kind: .array)
        return ArrayContainer(document: document, node: node)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        ValueContainer(document: document, node: node)
    }
}

/// A keyed container: members appended to an object node, sorted when written.
struct ObjectContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let document: JSONDocument
    let node: Int

    var codingPath: [any CodingKey] { document.codingPath(of: node) }

    private func member(_ key: Key) -> Int {
        document.appendChild(of: node, key: key.stringValue)
    }

    mutating func encodeNil(forKey key: Key) throws { document.setNull(member(key)) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { document.setBool(member(key), value) }
    mutating func encode(_ value: String, forKey key: Key) throws { document.setString(member(key), value) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        try JSONDocument.checkFinite(value, at: codingPath + [key])
        document.setFloatingPoint(member(key), value)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        try JSONDocument.checkFinite(value, at: codingPath + [key])
        document.setFloatingPoint(member(key), value)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { document.setInteger(member(key), value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { document.setInteger(member(key), value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { document.setInteger(member(key), value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { document.setInteger(member(key), value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { document.setInteger(member(key), value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { document.setInteger(member(key), value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { document.setInteger(member(key), value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { document.setInteger(member(key), value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { document.setInteger(member(key), value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { document.setInteger(member(key), value) }
    mutating func encode(_ value: Int128, forKey key: Key) throws { document.setInteger(member(key), value) }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { document.setInteger(member(key), value) }
    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        let previous = document.nodes[node].last
        let child = member(key)
        do {
            try document.encode(value, into: child)
        } catch {
            document.removeLastChild(child, of: node, previous: previous)
            throw error
        }
    }

    // What the protocol's own `encodeIfPresent` does, without its extra generic layer: synthesized `encode(to:)`
    // calls it for every optional property.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent<Value: Encodable>(_ value: Value?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(ObjectContainer<NestedKey>(document: document, node: document.nestedChild(of: node, key: key.stringValue, kind: .object)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ArrayContainer(document: document, node: document.nestedChild(of: node, key: key.stringValue, kind: .array))
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(document: document, node: document.appendChild(of: node, key: "super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(document: document, node: member(key))
    }
}

/// An unkeyed container: elements appended to an array node.
struct ArrayContainer: UnkeyedEncodingContainer {
    let document: JSONDocument
    let node: Int

    var codingPath: [any CodingKey] { document.codingPath(of: node) }
    var count: Int { document.nodes[node].children }

    private func element() -> Int {
        document.appendChild(of: node, key: nil)
    }

    mutating func encodeNil() throws { document.setNull(element()) }
    mutating func encode(_ value: Bool) throws { document.setBool(element(), value) }
    mutating func encode(_ value: String) throws { document.setString(element(), value) }
    mutating func encode(_ value: Double) throws {
        try JSONDocument.checkFinite(value, at: codingPath + [JSONDocument.PathKey(index: count)])
        document.setFloatingPoint(element(), value)
    }
    mutating func encode(_ value: Float) throws {
        try JSONDocument.checkFinite(value, at: codingPath + [JSONDocument.PathKey(index: count)])
        document.setFloatingPoint(element(), value)
    }
    mutating func encode(_ value: Int) throws { document.setInteger(element(), value) }
    mutating func encode(_ value: Int8) throws { document.setInteger(element(), value) }
    mutating func encode(_ value: Int16) throws { document.setInteger(element(), value) }
    mutating func encode(_ value: Int32) throws { document.setInteger(element(), value) }
    mutating func encode(_ value: Int64) throws { document.setInteger(element(), value) }
    mutating func encode(_ value: UInt) throws { document.setInteger(element(), value) }
    mutating func encode(_ value: UInt8) throws { document.setInteger(element(), value) }
    mutating func encode(_ value: UInt16) throws { document.setInteger(element(), value) }
    mutating func encode(_ value: UInt32) throws { document.setInteger(element(), value) }
    mutating func encode(_ value: UInt64) throws { document.setInteger(element(), value) }
    mutating func encode(_ value: Int128) throws { document.setInteger(element(), value) }
    mutating func encode(_ value: UInt128) throws { document.setInteger(element(), value) }
    mutating func encode<Value: Encodable>(_ value: Value) throws {
        let previous = document.nodes[node].last
        let child = element()
        do {
            try document.encode(value, into: child)
        } catch {
            document.removeLastChild(child, of: node, previous: previous)
            throw error
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = element()
        document.makeContainer(child, kind: .object)
        return KeyedEncodingContainer(ObjectContainer<NestedKey>(document: document, node: child))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = element()
        document.makeContainer(child, kind: .array)
        return ArrayContainer(document: document, node: child)
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(document: document, node: element())
    }
}

/// A single value container: the value goes into the encoder's own node.
struct ValueContainer: SingleValueEncodingContainer {
    let document: JSONDocument
    let node: Int

    var codingPath: [any CodingKey] { document.codingPath(of: node) }

    mutating func encodeNil() throws { document.setNull(node) }
    mutating func encode(_ value: Bool) throws { document.setBool(node, value) }
    mutating func encode(_ value: String) throws { document.setString(node, value) }
    mutating func encode(_ value: Double) throws {
        try JSONDocument.checkFinite(value, at: codingPath)
        document.setFloatingPoint(node, value)
    }
    mutating func encode(_ value: Float) throws {
        try JSONDocument.checkFinite(value, at: codingPath)
        document.setFloatingPoint(node, value)
    }
    mutating func encode(_ value: Int) throws { document.setInteger(node, value) }
    mutating func encode(_ value: Int8) throws { document.setInteger(node, value) }
    mutating func encode(_ value: Int16) throws { document.setInteger(node, value) }
    mutating func encode(_ value: Int32) throws { document.setInteger(node, value) }
    mutating func encode(_ value: Int64) throws { document.setInteger(node, value) }
    mutating func encode(_ value: UInt) throws { document.setInteger(node, value) }
    mutating func encode(_ value: UInt8) throws { document.setInteger(node, value) }
    mutating func encode(_ value: UInt16) throws { document.setInteger(node, value) }
    mutating func encode(_ value: UInt32) throws { document.setInteger(node, value) }
    mutating func encode(_ value: UInt64) throws { document.setInteger(node, value) }
    mutating func encode(_ value: Int128) throws { document.setInteger(node, value) }
    mutating func encode(_ value: UInt128) throws { document.setInteger(node, value) }
    mutating func encode<Value: Encodable>(_ value: Value) throws { try document.encode(value, into: node) }
}
