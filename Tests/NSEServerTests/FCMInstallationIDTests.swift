import Foundation
import NSEServer
import Testing

/// FCM HTTP v1's `message.fid` target (a Firebase Installation ID), as firebase-admin 7 sends it with
/// `Message(fid=...)` and `MulticastMessage(fids=...)`, and the control API and devices file carrying a device's FID.
@Suite(.timeLimit(.minutes(10)))
struct FCMInstallationIDTests {
    static let anaFID = "cAnaInstallation0000001"
    static let benFID = "dBenInstallation0000002"

    static let devicesJSON = """
        {"devices": [
          {"name": "Ana's iPhone", "platform": "ios", "apns": {"token": "\(ServeFixture.token)"}, "bundleId": "\(ServeFixture.topic)",
           "fcm": {"token": "\(ServeFixture.fcmToken)", "project": "\(ServeFixture.project)", "fid": "\(anaFID)"}},
          {"name": "Ben's Pixel", "platform": "android", "fcm": {"token": "\(ServeFixture.androidToken)", "project": "\(ServeFixture.project)", "fid": "\(benFID)"}}
        ]}
        """

    @Test func firebaseAdminSendsToAnInstallationID() async throws {
        let fixture = try await ServeFixture.start(devices: Self.devicesJSON)
        defer { Task { await fixture.stop() } }
        let sent = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send_fid", Self.anaFID])
        let name = try #require(sent["name"] as? String, "firebase-admin answered \(sent)")
        let shown = try await fixture.notifications()
        #expect(shown.first?["id"] as? String == name)
        let content = try #require((shown.first?["phone"] as? [String: Any])?["content"] as? [String: Any])
        #expect(content["title"] as? String == "Order shipped")

        // One call per installation; an unknown one is FCM's INVALID_ARGUMENT, the others go through.
        let batch = try await python(
            "fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "multicast_fids", Self.benFID, "fUnknownInstallation01", Self.anaFID])
        #expect(batch["success_count"] as? Int == 2, "firebase-admin answered \(batch)")
        let responses = try #require(batch["responses"] as? [[String: Any]])
        #expect(responses.map { $0["exception"] as? String } == [nil, "InvalidArgumentError", nil])
        #expect(try await fixture.notifications(ServeFixture.androidToken).count == 1)
        #expect(try await fixture.notifications().count == 2)
    }

    @Test func installationIDAnswersFollowTheDevicesLifecycle() async throws {
        let fixture = try await ServeFixture.start(devices: Self.devicesJSON)
        defer { Task { await fixture.stop() } }
        // Unknown: 400 INVALID_ARGUMENT naming the field, as for an unknown registration token.
        let url = fixture.base + "/v1/projects/\(ServeFixture.project)/messages:send"
        let bearer = try #require(try await curl(["--data-urlencode", "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer", "--data-urlencode", "assertion=\(providerToken())", fixture.base + "/token"]).json?["access_token"] as? String)
        let unknown = try await curl([
            "--http2-prior-knowledge", "-H", "authorization: Bearer \(bearer)", "--data-binary",
            #"{"message": {"fid": "fUnknownInstallation01", "notification": {"title": "Hi"}}}"#, url,
        ])
        #expect(unknown.status == 400)
        let error = try #require(unknown.json?["error"] as? [String: Any])
        #expect(error["status"] as? String == "INVALID_ARGUMENT")
        let details = try #require(error["details"] as? [[String: Any]])
        let violations = details.compactMap { $0["fieldViolations"] as? [[String: Any]] }.flatMap { $0 }
        #expect(violations.first?["field"] as? String == "message.fid")

        // Another project's sender: SENDER_ID_MISMATCH.
        let other = try await python("fcm_admin_client.py", [String(fixture.port), "another-project", "send_fid", Self.anaFID])
        #expect(other["exception"] as? String == "SenderIdMismatchError")

        // A token rotation keeps the installation: its FID still reaches the phone.
        let rotated = try await DeviceControlTests.control(fixture, "POST", "devices/\(ServeFixture.fcmToken)/rotate-fcm-token")
        #expect(rotated.status == 200)
        #expect(try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send_fid", Self.anaFID])["name"] is String)

        // Uninstalled: UNREGISTERED, as firebase-admin's UnregisteredError says of an FID.
        #expect(try await DeviceControlTests.control(fixture, "POST", "devices/\(Self.benFID)/uninstall").status == 200)
        let gone = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send_fid", Self.benFID])
        #expect(gone["exception"] as? String == "UnregisteredError")
        #expect(gone["http_status"] as? Int == 404)
    }

    @Test func controlAPICarriesTheInstallationID() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let fid = "eDeeInstallation0000003"
        let added = try await DeviceControlTests.control(fixture, "POST", "devices", """
            {"name": "Dee's Pixel", "platform": "android", "fcm": {"token": "dee:APA91b", "project": "\(ServeFixture.project)", "fid": "\(fid)"}}
            """)
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        #expect(((added.json?["device"] as? [String: Any])?["fcm"] as? [String: Any])?["fid"] as? String == fid)
        // Found by its FID too, and listed with it.
        let listed = try await curl([fixture.base + "/emulator/v1/devices/\(fid)/notifications"])
        #expect(listed.status == 200)
        #expect(try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send_fid", fid])["name"] is String)

        // Another device's FID, a malformed one, a token change through PATCH: refused.
        let taken = try await DeviceControlTests.control(fixture, "POST", "devices", """
            {"name": "Eve's Pixel", "platform": "android", "fcm": {"token": "eve:APA91b", "project": "\(ServeFixture.project)", "fid": "\(fid)"}}
            """)
        #expect(taken.status == 409)
        #expect(try await DeviceControlTests.control(fixture, "PATCH", "devices/\(fid)", #"{"fcm": {"fid": "not an fid!"}}"#).status == 400)
        #expect(try await DeviceControlTests.control(fixture, "PATCH", "devices/\(fid)", #"{"fcm": {"token": "other"}}"#).status == 400)
        #expect(try await DeviceControlTests.control(fixture, "PATCH", "devices/\(ServeFixture.productionToken)", #"{"fcm": {"fid": "fNew"}}"#).status == 400)

        // A new FID (the app was reinstalled and its installation is new): the old one is unknown from then on.
        let newFID = "fDeeReinstalled0000004"
        let changed = try await DeviceControlTests.control(fixture, "PATCH", "devices/\(fid)", #"{"fcm": {"fid": "\#(newFID)"}}"#)
        #expect(changed.status == 200, "\(String(decoding: changed.body, as: UTF8.self))")
        let device = try #require(changed.json?["device"] as? [String: Any])
        #expect((device["fcm"] as? [String: Any])?["fid"] as? String == newFID)
        #expect((device["fcm"] as? [String: Any])?["token"] as? String == "dee:APA91b")
        #expect(try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send_fid", fid])["exception"] as? String == "InvalidArgumentError")
        #expect(try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send_fid", newFID])["name"] is String)
        #expect(try await fixture.notifications("dee:APA91b").count == 2)
    }

    @Test func devicesFileRefusesADuplicateOrMalformedInstallationID() async throws {
        let duplicate = Self.devicesJSON.replacingOccurrences(of: Self.benFID, with: Self.anaFID)
        let malformed = Self.devicesJSON.replacingOccurrences(of: Self.benFID, with: "not/an fid")
        for (devices, expected) in [(duplicate, "already another device's"), (malformed, "is not a Firebase Installation ID")] {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("nse-fid-\(UUID().uuidString).json")
            try Data(devices.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect {
                _ = try DevicesFile.read(file)
            } throws: { error in
                (error as? ServeSetupError)?.description.contains(expected) == true
            }
        }
    }
}
