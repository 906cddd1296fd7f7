import Foundation

/// A content document's bytes as text, for the lenient (HTML) reading: what the XML parser refused
/// may still be text in some other encoding, or may be no text at all.
enum ContentDocumentDecoder {
    /// Why bytes could not be read as text at all, e.g. "binary data (it contains NUL bytes)".
    struct NotText: Error {
        var detected: String
    }

    /// The document's text: by its byte order mark, else UTF-8, else the encoding its XML
    /// declaration or `<meta charset>` names, else Windows-1252; refused when it is binary data.
    static func decode(_ data: Data) throws(NotText) -> String {
        let bytes = [UInt8](data)
        let hasByteOrderMark = bytes.starts(with: [0xEF, 0xBB, 0xBF]) || bytes.starts(with: [0xFF, 0xFE])
            || bytes.starts(with: [0xFE, 0xFF])
        let text: String
        if !hasByteOrderMark, !bytes.contains(0), String(data: data, encoding: .utf8) == nil,
           let declared = declaredEncoding(bytes.prefix(1024)), let decoded = String(data: data, encoding: declared) {
            text = decoded
        } else {
            do throws(BookError) {
                text = try PlainTextDecoder.decode(data, file: URL(fileURLWithPath: "/")).text
            } catch {
                guard case .unsupportedEncoding(_, let detected) = error else { throw NotText(detected: "\(error)") }
                throw NotText(detected: detected ?? "an unsupported encoding")
            }
        }
        var controls = 0, count = 0
        for byte in text.utf8 {
            if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0C, byte != 0x0D { controls += 1 }
            if byte & 0xC0 != 0x80 { count += 1 }
        }
        if controls * 100 > max(1, count) {
            throw NotText(detected: "binary data (too many control characters)")
        }
        return text
    }

    /// The encoding an XML declaration (`encoding="…"`) or `<meta charset=…>` names, when it is
    /// one Foundation decodes and not one `PlainTextDecoder` already covers (UTF-8, and
    /// ISO-8859-1 or Windows-1252, its fallback).
    private static func declaredEncoding(_ head: ArraySlice<UInt8>) -> String.Encoding? {
        let text = String(decoding: head, as: UTF8.self).lowercased()
        var name: Substring?
        for key in ["encoding=", "charset="] {
            guard let range = text.range(of: key) else { continue }
            let rest = text[range.upperBound...].drop { $0 == "\"" || $0 == "'" || $0 == " " }
            name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
            break
        }
        switch name {
        case "iso-8859-2", "latin2": return .isoLatin2
        case "windows-1250", "cp1250": return .windowsCP1250
        case "windows-1251", "cp1251": return .windowsCP1251
        case "windows-1253", "cp1253": return .windowsCP1253
        case "windows-1254", "cp1254": return .windowsCP1254
        case "shift_jis", "shift-jis", "sjis", "x-sjis", "windows-31j", "cp932": return .shiftJIS
        case "euc-jp": return .japaneseEUC
        case "iso-2022-jp": return .iso2022JP
        default: return nil
        }
    }
}
