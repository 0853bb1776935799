/// Where each device is in `ServeState.devices`, by its key, its APNs token (lowercase), its FCM token and its
/// Firebase Installation ID: a
/// push finds its device at the same cost with 1,000 devices as with one (a scan lowercased every device's
/// token for every push). Rebuilt whenever the devices change, which is rare next to pushes.
struct DeviceTokens {
    private var byKey: [String: Int] = [:]
    private var byAPNsToken: [String: Int] = [:]
    private var byFCMToken: [String: Int] = [:]
    private var byFID: [String: Int] = [:]

    init(_ devices: [DeviceEntry]) {
        // The first device with a token keeps it, as a scan from the front would find it.
        for (index, device) in devices.enumerated() {
            if byKey[ServeState.key(of: device)] == nil { byKey[ServeState.key(of: device)] = index }
            if let apns = device.apns, byAPNsToken[APNsToken.normalized(apns.token)] == nil {
                byAPNsToken[APNsToken.normalized(apns.token)] = index
            }
            if let fcm = device.fcm, byFCMToken[fcm.token] == nil { byFCMToken[fcm.token] = index }
            if let fid = device.fcm?.fid, byFID[fid] == nil { byFID[fid] = index }
        }
    }

    /// The index of the device with this APNs token (any case).
    func apns(_ token: String) -> Int? {
        byAPNsToken[APNsToken.normalized(token)]
    }

    func fcm(_ token: String) -> Int? {
        byFCMToken[token]
    }

    /// The index of the device with this Firebase Installation ID (FCM's `message.fid` target).
    func fid(_ fid: String) -> Int? {
        byFID[fid]
    }

    /// The first device whose key, APNs token (any case), FCM token or Firebase Installation ID `key` is.
    func any(_ key: String) -> Int? {
        [byKey[key], apns(key), fcm(key), fid(key)].compactMap { $0 }.min()
    }
}
