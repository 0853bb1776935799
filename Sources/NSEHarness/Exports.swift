// A test target that depends on the NSEHarness product and writes `import NSEHarness` names every type a test
// of an extension uses (DeviceProfile, Outcome, Diagnostic, MediaHostMapping, ProcessResult...) with no second
// import: the layer modules those types live in are re-exported here, as NSEKit re-exports them. The layers,
// not the NSEKit umbrella, so the package's own rule (no module imports NSEKit) holds.
@_exported import NSEPush
@_exported import NSEMedia
@_exported import NSEPipeline
@_exported import NSEReports
@_exported import NSEBatch
