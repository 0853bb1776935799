// NSEMedia: the device's network and image checks.
//
// Owns every download (libcurl's multi interface on one network thread: `TransferEngine`, `CurlTransfer`,
// `MediaFetcher`, App Transport Security and the host mapping judged hop by hop), the image decoders' Swift side over
// the C checkers in CNSE, attachment creation and the system's validation of attachments, a batch's shared media
// cache, and Android's image check. Imports NSEPush (the rules and the device profile), NSEConcurrency and the C
// targets; never the pipeline, reports or batch above it.
