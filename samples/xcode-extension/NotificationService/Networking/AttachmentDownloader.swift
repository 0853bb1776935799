//
//  AttachmentDownloader.swift
//  ShopNotificationService
//
//  Imports only Foundation, as helper files in an extension target often do.
//

import Foundation

enum AttachmentDownloader {
    enum Failure: Error {
        case status(Int)
    }

    /// Downloads `url` into a file of the extension's own, keeping the URL's file extension.
    static func download(_ url: URL) async throws -> URL {
        let (location, response) = try await URLSession.shared.download(from: url)
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            throw Failure.status(http.statusCode)
        }
        let name = UUID().uuidString + "." + (url.pathExtension.isEmpty ? "jpg" : url.pathExtension)
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        try FileManager.default.moveItem(at: location, to: destination)
        return destination
    }
}
