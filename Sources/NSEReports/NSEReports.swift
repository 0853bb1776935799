// NSEReports: what a user reads and what is written to `--out`.
//
// Owns every renderer (`ResultRenderer`: text, JSON, JSON Lines; lint, resolve and route text; the SDK comparison;
// HTML; a batch's text, JUnit, GitHub annotations and Markdown summary), a batch's entries, report and summary, and
// the output folder (`ResultWorkspace`: staged results published atomically, work folders, result folder names).
// Renderers take results; they decide nothing (the headline and exit status come from the verdict). Imports the
// layers below; never NSEBatch.
