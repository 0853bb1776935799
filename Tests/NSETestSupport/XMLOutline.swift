import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The elements of an XML document with their attributes; parsing fails on anything not well-formed.
public final class XMLOutline: NSObject, XMLParserDelegate {
    public struct Element {
        public var name: String
        public var attributes: [String: String]
        public subscript(name: String) -> String? { attributes[name] }
    }

    public private(set) var all: [Element] = []

    public init(_ data: Data) throws {
        super.init()
        let parser = XMLParser(data: data)
        parser.delegate = self
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.coderReadCorrupt) }
    }

    public func elements(_ name: String) -> [Element] {
        all.filter { $0.name == name }
    }

    public func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        all.append(Element(name: elementName, attributes: attributes))
    }
}
