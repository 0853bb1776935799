/// The push SDKs whose service-extension helper nse runs (issue 11). sdk-core owns this file; this is its
/// declaration from the SDK contract, so the SDK branches build before it is merged.
public enum PushSDK: String, CaseIterable, Sendable, Codable { case firebase, onesignal, braze, clevertap, iterable, customerio, pushwoosh, batch, airship, mixpanel, notificare }
