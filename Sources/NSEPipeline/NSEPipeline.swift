// NSEPipeline: one push through the device.
//
// `Pipeline` runs a push as an iPhone does: the checks stage (NSEPush), the decision to run the service extension,
// the extension (an `ExtensionRunner`: the harness with an app's own code or the built-in SDK helpers, which live
// above in NSEHarness), the system's validation of its attachments (NSEMedia), and the result: `ProcessResult`, what
// the phone shows with its verdict, headline and diagnostics. Owns the runner protocol, Firebase's helper and the
// result types. Every effect outside memory is the pipeline's to inject: the transport, the clock of the budget and
// the expiry call, the file store (NSEMedia's `MediaTransport`, `PipelineClock`, `FileStore`). Imports NSEPush, NSEMedia
// and NSEConcurrency; never the reports or batch above it.
