// NSEPush: the push and every rule iOS, APNs and FCM apply to it that needs no network.
//
// Owns the input files (APNs payloads, envelopes with their headers, `xcrun simctl` files, FCM HTTP v1 messages and
// their resolution for iOS and Android), the typed push (`aps`, alert, flags, destinations, the image request), every
// static rule (lint, the checks stage, routes, FCM's refusals, SDK detection), the notification content, the device
// profile with its documented assumptions, and every diagnostic code with its message. It imports Foundation only:
// no socket, no thread, no clock; the one file it reads is the one a command names (`RegularFile`). Every command and
// the server reach a rule here, so each rule lives in one place (docs/design.md, "Where each rule lives").
