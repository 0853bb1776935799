import Foundation
import Testing

/// Small things a newcomer met: a mistyped command named nothing, `-` was documented nowhere in the help, and
/// counts of one read "1 payloads", "1 downloads".
struct NewcomerCommandTests {
    @Test(arguments: [("proces", "process"), ("lnt", "lint"), ("batchh", "batch"), ("rsolve", "resolve"), ("extention", "extension")])
    func aMistypedCommandGetsDidYouMean(typed: String, meant: String) async throws {
        let run = try await runNSE([typed, "samples/payloads/jpeg-ok.json"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("Unknown command '\(typed)'. Did you mean '\(meant)'?"), "\(run.stderr)")
    }

    @Test func aWordThatIsNoCommandListsTheCommands() async throws {
        let run = try await runNSE(["samples/payloads/jpeg-ok.json"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("Unknown command 'samples/payloads/jpeg-ok.json'. The commands are: process, batch, extension, lint, resolve, route, serve."), "\(run.stderr)")
    }

    @Test(arguments: ["process", "lint", "resolve", "route"])
    func helpSaysThatADashReadsStandardInput(command: String) async throws {
        let run = try await runNSE([command, "--help"])
        #expect(run.status == 0)
        #expect(run.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ").contains("`-` reads one from standard input"), "\(run.stdout)")
    }

    @Test(.timeLimit(.minutes(1)))
    func aBatchOfOneCountsInTheSingular() async throws {
        let run = try await runNSE(["batch", "samples/payloads/jpeg-ok.json", "--media", "samples/media", "--jobs", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("1 payload in "), "\(run.stdout)")
        #expect(run.stdout.contains(", 1 job, "), "\(run.stdout)")
        #expect(run.stdout.contains("media: 1 download for 1 image request, 1 decode for 1 attachment\n"), "\(run.stdout)")
    }

    @Test(.timeLimit(.minutes(1)))
    func processTotalsCountInTheSingular() async throws {
        let run = try await runNSE(["process", "samples/payloads/jpeg-ok.json", "samples/payloads/misspelled-mutable-content.json", "--media", "samples/media", "--format", "text"])
        #expect(run.stdout.contains("2 pushes: 1 pass, 1 fail (1 warning); 1 of the 2 images asked for would show"), "\(run.stdout)")
        let text = try ScratchFile("text.json", #"{"aps": {"alert": {"title": "No image"}}}"#)
        let one = try await runNSE(["process", "samples/payloads/jpeg-ok.json", text.path, "--media", "samples/media", "--format", "text"])
        #expect(one.stdout.contains("2 pushes: 2 pass, 0 fail; 1 of the 1 image asked for would show"), "\(one.stdout)")
    }
}
