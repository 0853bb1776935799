// NSEKit: the whole library in one import, for apps' test targets and the modules above the pipeline.
//
// The library is five modules, each importing only those before it: NSEPush (the push model and every static
// rule), NSEMedia (downloads, decoders, the system's attachment checks), NSEPipeline (one push through the
// device: the checks, the extension, what the phone shows), NSEReports (every renderer and the output folder)
// and NSEBatch (many pushes at once). docs/design.md draws them.
@_exported import NSEPush
@_exported import NSEMedia
@_exported import NSEPipeline
@_exported import NSEReports
@_exported import NSEBatch
