import Foundation
import ZIPFoundation

/// The EPUB's ZIP archive, opened once and read entry by entry under ZIP-bomb limits.
///
/// Opening checks every entry before anything is extracted: names that leave the root
/// (`../x`, `/x`) and declared sizes against `BookLimits` (per entry, in total, and the
/// compression ratio of large entries). Reading an entry then stops the moment it inflates past
/// what it declared, so a lying header costs at most the declared size in memory:
///
///     let archive = try EPUBArchive(file: url, limits: .default)
///     let opf = try archive.data(at: "EPUB/package.opf")
///
/// ZIPFoundation's `Archive` keeps one `FILE*` and a read position, so reads are serialised by
/// a lock; that is what makes sharing it between an outline and a background loader safe.
final class EPUBArchive: @unchecked Sendable {
    let file: URL
    let limits: BookLimits
    private let archive: Archive
    private let entries: [String: Entry]
    private let entriesByLowercasedPath: [String: Entry]
    private let lock = NSLock()

    init(file: URL, limits: BookLimits) throws(BookError) {
        self.file = file
        self.limits = limits
        try Self.checkEndOfCentralDirectory(file)
        let archive: Archive
        do {
            archive = try Archive(url: file, accessMode: .read)
        } catch Archive.ArchiveError.missingEndOfCentralDirectoryRecord {
            throw .truncatedArchive(file: file, reason: "no end-of-central-directory record")
        } catch {
            throw .unreadable(file: file, reason: "\(error)")
        }
        var entries: [String: Entry] = [:]
        var lowercased: [String: Entry] = [:]
        var total: UInt64 = 0
        for entry in archive {
            let name = entry.path
            guard let normalized = ArchivePath.normalizedEntryName(name) else {
                throw .pathEscapesArchive(file: file, path: name)
            }
            let size = entry.uncompressedSize
            if size > limits.maxEntrySize {
                throw .tooLarge(file: file, violation: .entry(path: name, size: size, limit: limits.maxEntrySize))
            }
            if size > limits.ratioCheckedAbove,
               size / max(entry.compressedSize, 1) > limits.maxCompressionRatio {
                throw .tooLarge(file: file, violation: .ratio(path: name, compressed: entry.compressedSize,
                                                              uncompressed: size, limit: limits.maxCompressionRatio))
            }
            total += size
            if total > limits.maxTotalSize {
                throw .tooLarge(file: file, violation: .total(size: total, limit: limits.maxTotalSize))
            }
            guard entry.type == .file else { continue }
            if entries[normalized] == nil { entries[normalized] = entry }
            if lowercased[normalized.lowercased()] == nil { lowercased[normalized.lowercased()] = entry }
        }
        self.archive = archive
        self.entries = entries
        self.entriesByLowercasedPath = lowercased
    }

    func contains(_ path: String) -> Bool { entry(at: path) != nil }

    /// The declared uncompressed size, used to decide which documents are cheap enough to read
    /// while opening.
    func declaredSize(of path: String) -> UInt64? { entry(at: path)?.uncompressedSize }

    /// The entry's bytes; `missingResource` when there is no such entry.
    func data(at path: String) throws(BookError) -> Data {
        guard let entry = entry(at: path) else { throw .missingResource(file: file, path: path) }
        let declared = entry.uncompressedSize
        let ceiling = min(declared, limits.maxEntrySize)
        var collected = Data()
        collected.reserveCapacity(Int(ceiling))
        lock.lock()
        defer { lock.unlock() }
        let checksum: CRC32
        do {
            checksum = try archive.extract(entry, skipCRC32: false) { chunk in
                guard UInt64(collected.count + chunk.count) <= ceiling else {
                    throw BookError.tooLarge(file: self.file, violation: .inflated(
                        path: entry.path, declared: declared, limit: self.limits.maxEntrySize))
                }
                collected.append(chunk)
            }
        } catch let error as BookError {
            throw error
        } catch {
            throw .truncatedArchive(file: file, reason: "\(entry.path) cannot be inflated (\(error))")
        }
        guard UInt64(collected.count) == declared else {
            throw .truncatedArchive(file: file, reason:
                "\(entry.path) holds \(collected.count) bytes but declares \(declared)")
        }
        guard checksum == entry.checksum else {
            throw .truncatedArchive(file: file, reason: "\(entry.path) fails its CRC-32 check")
        }
        return collected
    }

    /// At least the first `count` bytes of the entry (all of it when it is shorter), inflating no
    /// further: enough to look at the start of a long document while a book is opened. Not
    /// checked against its CRC (the rest is never read); `missingResource` when there is no such entry.
    func prefix(at path: String, count: Int) throws(BookError) -> Data {
        guard let entry = entry(at: path) else { throw .missingResource(file: file, path: path) }
        if entry.uncompressedSize <= UInt64(count) { return try data(at: path) }
        struct Enough: Error {}
        var collected = Data()
        lock.lock()
        defer { lock.unlock() }
        do {
            _ = try archive.extract(entry, bufferSize: 4096, skipCRC32: true) { chunk in
                collected.append(chunk)
                if collected.count >= count { throw Enough() }
            }
        } catch is Enough {
        } catch {
            throw .truncatedArchive(file: file, reason: "\(entry.path) cannot be inflated (\(error))")
        }
        return collected
    }

    private func entry(at path: String) -> Entry? {
        entries[path] ?? entriesByLowercasedPath[path.lowercased()]
    }

    /// A ZIP ends with an end-of-central-directory record within its last 64 KiB + 22 bytes.
    /// Looking for it ourselves turns a file cut short into a clear error at once (ZIPFoundation
    /// would scan the whole file backwards a byte at a time first).
    private static func checkEndOfCentralDirectory(_ file: URL) throws(BookError) {
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            let size = try handle.seekToEnd()
            let tailLength = min(size, 65_535 + 22)
            try handle.seek(toOffset: size - tailLength)
            let tail = [UInt8](try handle.read(upToCount: Int(tailLength)) ?? Data())
            let signature: [UInt8] = [0x50, 0x4B, 0x05, 0x06]
            var index = tail.count - 22
            while index >= 0 {
                if tail[index] == signature[0], tail[index + 1] == signature[1],
                   tail[index + 2] == signature[2], tail[index + 3] == signature[3] { return }
                index -= 1
            }
            throw BookError.truncatedArchive(file: file, reason: "no end-of-central-directory record")
        } catch let error as BookError {
            throw error
        } catch {
            throw .unreadable(file: file, reason: "\(error)")
        }
    }
}
