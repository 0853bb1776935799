// NSEMedia: the device's network and image checks.
//
// Owns every download (`MediaFetcher` over a `MediaTransport`: libcurl's multi interface on one network thread,
// `TransferEngine` and `CurlTransfer`, or `ScriptedTransport` in memory for unit tests; both judge each hop by
// `HopRules`: time left, size limits, redirects, App Transport Security, the host mapping), the image decoders' Swift side over
// the C checkers in CNSE, attachment creation and the system's validation of attachments, a batch's shared media
// cache, and Android's image check. Imports NSEPush (the rules and the device profile), NSEConcurrency and the C
// targets; never the pipeline, reports or batch above it.
