import Testing
@testable import NSEMediaServer
@Test func placeholder() { #expect(Bool(true)) }
