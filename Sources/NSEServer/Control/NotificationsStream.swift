import Foundation

/// `GET /emulator/v1/devices/<token>/notifications` when the answer is longer than a page: the same JSON,
/// sent as it is read. Each page (`pageBytes` of stored JSON) is read from the journal, written, and taken by
/// the socket before the next is read, so `?limit=100000` costs a page of memory, not the whole answer, and
/// the server's state is held for one page at a time, not for every read: pushes go on meanwhile.
struct NotificationsStream: ResponseStream {
    let state: ServeState
    let deviceKey: String
    /// The answer up to the first page's notifications: `{"device": ..., "notifications":[...` (no `]` yet).
    let opening: [UInt8]
    /// How many notifications `opening` holds.
    let listed: Int
    /// The push the next page starts from, down the device's chain.
    let next: Int
    /// How many more notifications the client asked for (`?limit=` less those listed).
    let remaining: Int

    /// About 40 text-only notifications.
    static let pageBytes = 64 << 10

    func start(_ writer: StreamWriter) {
        let (state, deviceKey, opening, listed, next, remaining) = (state, deviceKey, opening, listed, next, remaining)
        Task {
            guard await writer.writeAndWait(opening) else { return }
            var separated = listed > 0
            var cursor: Int? = next
            var remaining = remaining
            while let from = cursor, remaining > 0 {
                let page = await state.notifications(deviceKey: deviceKey, from: from, limit: remaining, maxBytes: Self.pageBytes)
                var bytes: [UInt8] = []
                for record in page.records {
                    if separated { bytes.append(UInt8(ascii: ",")) }
                    separated = true
                    bytes.append(contentsOf: record.json())
                }
                remaining -= page.records.count
                cursor = page.next
                if !bytes.isEmpty, !(await writer.writeAndWait(bytes)) { return }
            }
            guard await writer.writeAndWait(Array("]}".utf8)) else { return }
            writer.finish()
        }
    }
}
