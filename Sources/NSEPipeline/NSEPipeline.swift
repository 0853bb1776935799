// NSEPipeline: one push through the device.
//
// `Emulator` runs a push as an iPhone does: the checks stage (NSEPush), the decision to run the service extension,
// the extension (an `ExtensionRunner`: the harness with an app's own code or the built-in SDK helpers, which live
// above in NSEHarness), the system's validation of its attachments (NSEMedia), and the result: `ProcessResult`, what
// the phone shows with its verdict, headline and diagnostics. Owns the runner protocol, Firebase's helper and the
// result types. Imports NSEPush, NSEMedia and NSEConcurrency; never the reports or batch above it.
