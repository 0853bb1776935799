// NSEBatch: many pushes at once.
//
// Owns input discovery (folders walked in a deterministic order), `BatchRunner` (a bounded number of pushes in
// flight, each push's planned download started ahead of its turn, results saved as they complete) and `report.json`.
// The crash-containing supervisor that restarts a worker is the command line's (Sources/nse). Imports every layer
// below it.
