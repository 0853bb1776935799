import Foundation

/// What `nse serve --print-env` prints: the environment variables that send the common HTTP clients through
/// `--proxy` and make them trust the local CA (docs/serve.md says which client reads which).
public enum ProxyEnvironment {
    /// Shell lines (`export NAME=value`, comments for what a variable cannot do) for a proxy on 127.0.0.1:`port`
    /// whose CA is in `dataDirectory`; makes the CA when the folder has none yet, so the path printed exists.
    public static func script(port: Int, dataDirectory: URL) throws(ServeSetupError) -> String {
        do {
            try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        } catch {
            throw ServeSetupError("Cannot create the data folder \(dataDirectory.path): \(error.localizedDescription).")
        }
        let ca = try LocalCA.loadOrCreate(in: dataDirectory.standardizedFileURL).certificateURL.path
        let proxy = "http://127.0.0.1:\(port)"
        let local = "127.0.0.1,localhost"
        let truststore = dataDirectory.standardizedFileURL.appendingPathComponent("truststore.p12").path
        var lines = ["# nse serve --proxy --port \(port): push hosts answered by the emulator, certificates signed by \(ca)"]
        let variables: [(String, String, String)] = [
            ("HTTPS_PROXY", proxy, "most clients: requests, httpx, curl, Go, google-auth"),
            ("https_proxy", proxy, "curl reads the lowercase name first"),
            ("NO_PROXY", local, "the emulator's own control API, reached directly"),
            ("no_proxy", local, ""),
            ("REQUESTS_CA_BUNDLE", ca, "requests (firebase-admin, google-auth)"),
            ("SSL_CERT_FILE", ca, "httpx, Go, OpenSSL's default"),
            ("CURL_CA_BUNDLE", ca, "curl"),
            ("NODE_EXTRA_CA_CERTS", ca, "Node"),
            ("NODE_USE_ENV_PROXY", "1", "Node 22.21 and 24.5 on: http, https and fetch read HTTPS_PROXY"),
            ("JAVA_TOOL_OPTIONS", "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=\(port) -Dhttp.nonProxyHosts=127.0.0.1|localhost", "the JVM"),
        ]
        for (name, value, note) in variables {
            let quoted = value.contains(" ") || value.contains("|") ? "\"\(value)\"" : value
            lines.append("export \(name)=\(quoted)" + (note.isEmpty ? "" : "  # \(note)"))
        }
        lines += [
            "# The JVM reads no PEM file: import the CA into a truststore once, then add it to JAVA_TOOL_OPTIONS:",
            "#   keytool -importcert -noprompt -alias nse-serve -file \(ca) -keystore \(truststore) -storepass changeit",
            "#   -Djavax.net.ssl.trustStore=\(truststore) -Djavax.net.ssl.trustStorePassword=changeit",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
