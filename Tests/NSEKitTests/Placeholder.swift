import Testing
@testable import NSEKit
@Test func placeholder() { #expect(Bool(true)) }
