// `import OSLog` on iOS brings `os`'s logging API (Logger, OSLog, os_log) with it: so does this stand-in.
@_exported import os
// It re-exports Foundation too, so a file that imports only OSLog sees `Bundle`, `Date`, `URL` as on iOS.
@_exported import Foundation
