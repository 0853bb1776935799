import Foundation
@testable import NSEPush
import Testing

/// The one table of where iOS hands a push (`Destination.row`): each push type, destination and route receiver
/// maps to the others through it, and the names the JSON carries stay what they were.
struct DestinationTableTests {
    @Test(arguments: PushType.allCases)
    func eachPushTypeGoesToTheDestinationWhoseRowNamesIt(type: PushType) {
        #expect(type.rules.destination.row.pushType == type)
    }

    @Test func everyDestinationButNowhereHasOnePushType() {
        let named = Destination.allCases.compactMap(\.row.pushType)
        #expect(Set(named) == Set(PushType.allCases))
        #expect(named.count == PushType.allCases.count)
        #expect(Destination.nowhere.row.pushType == nil)
    }

    /// The JSON names a destination and its route's receiver alike, and a receiver of its own is what makes a
    /// destination "another receiver" (never Notification Center, the app's delegate, or nothing).
    @Test(arguments: Destination.allCases)
    func aReceiverOfItsOwnHasTheDestinationsName(destination: Destination) {
        let receiver = PlatformRoute.Receiver(destination)
        #expect(receiver?.rawValue == (destination.isAnotherReceiver ? destination.rawValue : nil))
        #expect(destination.isAnotherReceiver == ![.notificationCenter, .backgroundApp, .nowhere].contains(destination))
    }

    @Test func onlyActivityKitShowsSomethingByItself() {
        #expect(Destination.allCases.filter { $0.row.receiver != nil && $0.row.display == .system } == [.activityKit])
    }
}
