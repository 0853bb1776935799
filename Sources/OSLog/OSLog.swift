// `import OSLog` on iOS brings `os`'s logging API (Logger, OSLog, os_log) with it: so does this stand-in.
@_exported import os
