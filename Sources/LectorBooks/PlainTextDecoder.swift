import Foundation
import LectorCore

/// Decodes a plain-text book's bytes, telling what encoding they were in.
///
/// - A byte order mark decides: UTF-8 (EF BB BF), UTF-16 (FF FE / FE FF); UTF-32 marks are
///   refused.
/// - Without one: NUL bytes mean binary data or BOM-less UTF-16/32 and are refused; valid UTF-8
///   is UTF-8; anything else is decoded as Windows-1252, a superset of ISO-8859-1's printable
///   characters that also covers the curly quotes Windows editors write, unless too many bytes
///   decode to control characters, which means binary data.
///
///     try PlainTextDecoder.decode(Data([0x63, 0x61, 0x66, 0xE9]), file: url)  // ("café", .isoLatin1)
enum PlainTextDecoder {
    /// Windows-1252's characters for 0x80...0x9F; nil where it defines none.
    static let windows1252High: [UInt32?] = [
        0x20AC, nil, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, nil,
        0x017D, nil, nil, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
        0x0153, nil, 0x017E, 0x0178,
    ]

    static func decode(_ data: Data, file: URL) throws(BookError) -> (text: String, encoding: TextEncoding) {
        // No copy of the bytes and no NSString: a 48-MB book is decoded into one String.
        if data.starts(with: [0xFF, 0xFE, 0x00, 0x00]) {
            throw .unsupportedEncoding(file: file, detected: "UTF-32 little-endian")
        }
        if data.starts(with: [0x00, 0x00, 0xFE, 0xFF]) {
            throw .unsupportedEncoding(file: file, detected: "UTF-32 big-endian")
        }
        if data.starts(with: [0xEF, 0xBB, 0xBF]) {
            guard let text = data.withUnsafeBytes({ String(validating: $0.dropFirst(3), as: UTF8.self) }) else {
                throw .unsupportedEncoding(file: file, detected: "UTF-8 byte order mark followed by invalid UTF-8")
            }
            return (text, .utf8WithByteOrderMark)
        }
        if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) {
            let littleEndian = data.first == 0xFF
            guard let text = utf16(data.dropFirst(2), littleEndian: littleEndian) else {
                throw .unsupportedEncoding(file: file, detected: "UTF-16 with invalid data")
            }
            return (text, littleEndian ? .utf16LittleEndian : .utf16BigEndian)
        }
        if data.withUnsafeBytes({ $0.contains(0) }) {
            throw .unsupportedEncoding(file: file, detected: nulDescription([UInt8](data.prefix(4096))))
        }
        if let text = data.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) {
            return (text, .utf8)
        }
        return try singleByte([UInt8](data), file: file)
    }

    /// Hands a UTF-8 file (with or without its byte order mark) to `body` a piece at a time (`FileChunks`), each
    /// piece whole scalars (a scalar cut by a read waits for the next), hashing its bytes on the
    /// way (`StableHash`, the book's identity): a 48-MB book is never held at once. Nil when the
    /// file turns out to be anything else (another byte order mark, NUL bytes, invalid UTF-8),
    /// maybe after some pieces: `decode` then reads it whole. A file that grew past `limit` while
    /// it was read is refused.
    static func scanUTF8(_ file: URL, limit: UInt64 = .max,
                         _ body: (Substring) -> Void) throws(BookError) -> (encoding: TextEncoding, hash: UInt64)? {
        var total: UInt64 = 0
        var hash = StableHash.offsetBasis
        var carry: [UInt8] = []
        var encoding = TextEncoding.utf8
        var first = true, isUTF8 = true
        do {
            try FileChunks.read(file) { read in
                total += UInt64(read.count)
                if total > limit { return false }
                hash = StableHash.value(read, continuing: hash)
                var bytes = carry.isEmpty ? read : carry + read
                if first {
                    first = false
                    if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) {
                        isUTF8 = false
                        return false
                    }
                    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
                        encoding = .utf8WithByteOrderMark
                        bytes.removeFirst(3)
                    }
                }
                // A scalar cut by the piece's end waits for the next piece.
                let cut = completeScalarsEnd(bytes)
                guard !bytes.contains(0), let piece = String(validating: bytes[..<cut], as: UTF8.self) else {
                    isUTF8 = false
                    return false
                }
                body(Substring(piece))
                carry = Array(bytes[cut...])
                return true
            }
        } catch {
            throw .unreadable(file: file, reason: "\(error)")
        }
        guard total <= limit else { throw BookError.tooLarge(file: file, violation: .entry(path: file.lastPathComponent, size: total, limit: limit)) }
        guard isUTF8, carry.isEmpty else { return nil }
        return (encoding, hash)
    }

    /// The hash of the whole file and of each of `ranges` (UTF-8 offsets after `skipping` bytes,
    /// in order, not overlapping), in one more read of it (`FileChunks`): a chapter's checksum
    /// once the chapters are known (`scanUTF8` could not know where they end).
    static func hashes(of file: URL, skipping: Int, ranges: [Range<Int>]) throws(BookError) -> (file: UInt64, ranges: [UInt64]) {
        var whole = StableHash.offsetBasis
        var hashes = [UInt64](repeating: StableHash.offsetBasis, count: ranges.count)
        var next = 0   // the first range not yet read to its end
        var position = -skipping   // the piece's start, in the ranges' offsets
        do {
            try FileChunks.read(file) { bytes in
                whole = StableHash.value(bytes, continuing: whole)
                let end = position + bytes.count
                var index = next
                while index < ranges.count, ranges[index].lowerBound < end {
                    let lower = max(ranges[index].lowerBound, position), upper = min(ranges[index].upperBound, end)
                    if lower < upper {
                        hashes[index] = StableHash.value(bytes[(lower - position)..<(upper - position)], continuing: hashes[index])
                    }
                    if ranges[index].upperBound <= end, index == next { next += 1 }
                    index += 1
                }
                position = end
                return true
            }
        } catch {
            throw .unreadable(file: file, reason: "\(error)")
        }
        return (whole, hashes)
    }

    /// Where the last whole UTF-8 sequence of `bytes` ends: before a lead byte whose sequence
    /// runs past the end (at most 3 bytes back).
    static func completeScalarsEnd(_ bytes: [UInt8]) -> Int {
        var index = bytes.count
        while index > 0, bytes.count - index < 4 {
            index -= 1
            let byte = bytes[index]
            if byte & 0xC0 == 0x80 { continue }   // a continuation byte: look further back
            let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            return index + length <= bytes.count ? bytes.count : index
        }
        return bytes.count
    }

    private static func utf16(_ bytes: Data, littleEndian: Bool) -> String? {
        guard bytes.count % 2 == 0 else { return nil }
        return String(data: Data(bytes), encoding: littleEndian ? .utf16LittleEndian : .utf16BigEndian)
    }

    /// NULs on every other byte look like UTF-16 without its byte order mark.
    private static func nulDescription(_ bytes: [UInt8]) -> String {
        let sample = bytes.prefix(4096)
        let evenNULs = stride(from: 0, to: sample.count, by: 2).filter { sample[$0] == 0 }.count
        let oddNULs = stride(from: 1, to: sample.count, by: 2).filter { sample[$0] == 0 }.count
        let pairs = max(1, sample.count / 2)
        if oddNULs * 10 >= pairs * 9, evenNULs * 10 < pairs { return "UTF-16 little-endian without a byte order mark" }
        if evenNULs * 10 >= pairs * 9, oddNULs * 10 < pairs { return "UTF-16 big-endian without a byte order mark" }
        return "binary data (it contains NUL bytes)"
    }

    private static func singleByte(_ bytes: [UInt8], file: URL) throws(BookError) -> (String, TextEncoding) {
        var scalars = String.UnicodeScalarView()
        var controls = 0
        var usesHighRange = false
        for byte in bytes {
            let value: UInt32
            if (0x80...0x9F).contains(byte) {
                usesHighRange = true
                guard let mapped = windows1252High[Int(byte - 0x80)] else {
                    controls += 1
                    continue
                }
                value = mapped
            } else {
                value = UInt32(byte)
                if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0C, byte != 0x0D { controls += 1 }
                if byte == 0x7F { controls += 1 }
            }
            scalars.append(Unicode.Scalar(value)!)
        }
        if controls * 100 > bytes.count {
            throw .unsupportedEncoding(file: file, detected: "binary data (too many control characters)")
        }
        return (String(scalars), usesHighRange ? .windows1252 : .isoLatin1)
    }
}
