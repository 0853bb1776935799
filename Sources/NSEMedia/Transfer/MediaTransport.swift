import Foundation

/// What carries a download's hops: libcurl for every command (`CurlTransport`), scripted responses in memory for
/// unit tests (`ScriptedTransport`). Both judge each hop with the same `HopRules`, so a rule tested in memory is
/// the rule libcurl's transfers follow.
package protocol MediaTransport: Sendable {
    /// Starts `request` without blocking the caller, and calls `completion` once with the outcome (on any
    /// thread; it must be short). Any of `cancellations` set ends the transfer as `.cancelled`.
    func start(
        _ request: TransferRequest, cancellations: [TransferCancellation],
        completion: @escaping @Sendable (Result<TransferResult, MediaFetchError>) -> Void)
}

/// libcurl's transport: every transfer on the process's network thread (`TransferEngine`).
package struct CurlTransport: MediaTransport {
    package init() {}

    package func start(
        _ request: TransferRequest, cancellations: [TransferCancellation],
        completion: @escaping @Sendable (Result<TransferResult, MediaFetchError>) -> Void
    ) {
        TransferEngine.shared.submit(CurlTransfer(request, cancellations: cancellations, completion: completion))
    }
}
