/// The push SDKs whose service-extension helper nse runs (issue 11). sdk-core owns this file; sdk-b's copy holds
/// only the enum its built-in extensions are keyed by, so the lead's merge keeps sdk-core's version.
public enum PushSDK: String, CaseIterable, Sendable, Codable { case firebase, onesignal, braze, clevertap, iterable, customerio, pushwoosh, batch, airship, mixpanel, notificare }
