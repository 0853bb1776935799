import Foundation

/// Reads a file a user named, in bounded time and memory, whatever the name points at.
///
/// A FIFO with no writer blocks `open(2)` for ever, a character device (`/dev/zero`, a terminal) never ends, and
/// opening a socket fails with a puzzling "No such device or address". So the kind is checked before anything is
/// opened, the file is opened without blocking (O_NONBLOCK, O_NOCTTY) and checked again on the descriptor (the
/// name may have been replaced in between), and at most `limit` + 1 bytes are read. Every command that reads a
/// file it was given (pushes, Info.plist, extension sources) reads it here: one rule for all of them.
public enum RegularFile {
    /// The file's bytes; throws when it is not a regular file, cannot be read, or holds more than `limit` bytes.
    public static func read(_ path: String, limit: Int) throws(RegularFileError) -> Data {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .unreadable(errno: errno) }
        if let kind = FileKind(mode: info.st_mode) { throw .notRegular(kind) }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(errno: errno) }
        defer { close(descriptor) }
        guard fstat(descriptor, &info) == 0 else { throw .unreadable(errno: errno) }
        if let kind = FileKind(mode: info.st_mode) { throw .notRegular(kind) }
        return try readAll(descriptor, limit: limit)
    }

    /// At most `limit` + 1 bytes of an open descriptor, to its end (standard input is read here too).
    public static func readAll(_ descriptor: Int32, limit: Int) throws(RegularFileError) -> Data {
        var bytes = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= limit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(errno: errno)
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
        guard bytes.count <= limit else { throw .tooLarge(atLeast: bytes.count) }
        return bytes
    }

    /// What a name points at when it is not a regular file.
    public enum FileKind: Sendable, Equatable {
        case folder, fifo, characterDevice, blockDevice, socket, other

        /// Nil for a regular file.
        public init?(mode: mode_t) {
            switch mode & S_IFMT {
            case S_IFREG: return nil
            case S_IFDIR: self = .folder
            case S_IFIFO: self = .fifo
            case S_IFCHR: self = .characterDevice
            case S_IFBLK: self = .blockDevice
            case S_IFSOCK: self = .socket
            default: self = .other
            }
        }
    }
}

/// Why `RegularFile.read` refused a file, with the words every command uses for it.
public enum RegularFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(errno: Int32)
    case notRegular(RegularFile.FileKind)
    case tooLarge(atLeast: Int)

    public var description: String { reason(path: "the file") }

    /// Why, in the sentence that follows "Cannot read PATH: " (ending before its full stop).
    public func reason(path: String) -> String {
        switch self {
        case .unreadable(let code):
            switch code {
            case ENOENT: "no such file"
            case EACCES, EPERM: "permission denied"
            case ENOTDIR: "a part of the path is not a folder"
            case EISDIR: "it is a folder"
            default: String(cString: strerror(code))
            }
        case .notRegular(let kind):
            switch kind {
            case .folder: "it is a folder, not a file"
            case .fifo: "it is a FIFO (named pipe), not a file: nse reads only regular files, since a pipe with no writer would keep it waiting for ever"
            case .characterDevice: "it is a character device, not a file: nse reads only regular files, since a device may never end"
            case .blockDevice: "it is a block device, not a file: nse reads only regular files"
            case .socket: "it is a socket, not a file: nse reads only regular files"
            case .other: "it is not a regular file: nse reads only regular files"
            }
        case .tooLarge(let size):
            "it is over the size nse reads (\(size) bytes read)"
        }
    }
}
