import FoundationEssentials
import Glibc
import LectorSpawn

/// Standard error for the CLI's messages (FileHandle is Foundation's, not FoundationEssentials':
/// the CLI links neither Foundation nor the ICU data it brings).
///
///     StandardError.write("lector: speech 4 cancelled\n")
public enum StandardError {
    public static func write(_ text: String) {
        Array(text.utf8).withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}

/// Standard input, read to its end (`lector say -`).
public enum StandardInput {
    public static func readAll() throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError("cannot read standard input: \(String(cString: strerror(errno)))")
            }
            bytes += buffer[..<count]
        }
    }
}

/// Columns padded to their widest cell, for terminals; trailing blanks dropped.
///
///     Table.render(header: ["#", "TITLE"], rows: [["1", "Loomings"]])   // "#  TITLE\n1  Loomings"
public enum Table {
    public static func render(header: [String], rows: [[String]]) -> String {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { cells in
            let padded = cells.enumerated().map { $0.element + String(repeating: " ", count: max(0, widths[$0.offset] - $0.element.count)) }
            return String(padded.joined(separator: "  ").reversed().drop(while: \.isWhitespace).reversed())
        }.joined(separator: "\n")
    }
}

/// Text the commands share.
public enum CommandText {
    /// "Fix: lector read /books/anna.txt --voice Russian", or nil when no voice can read it.
    public static func voiceFix(suggested: String?, url: String?) -> String? {
        guard let suggested, !suggested.isEmpty else { return nil }
        let path = url.flatMap { URL(string: $0)?.path } ?? "FILE"
        return "Fix: lector read \(shellQuoted(path)) --voice \(shellQuoted(suggested))"
    }

    /// `text` as one shell word: as it is when it needs no quoting, else in single quotes.
    ///
    ///     CommandText.shellQuoted("Moby Dick.epub")   // "'Moby Dick.epub'"
    public static func shellQuoted(_ text: String) -> String {
        let plain = text.unicodeScalars.allSatisfy {
            Self.alphanumeric.contains($0.properties.generalCategory) || "/._-+,:=@".unicodeScalars.contains($0)
        }
        guard !plain || text.isEmpty else { return text }
        // By scalar: a quote with a combining mark after it is one Character, and still a quote to the shell.
        var quoted = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "'" { quoted.append(contentsOf: "'\\''".unicodeScalars) } else { quoted.append(scalar) }
        }
        return "'" + String(quoted) + "'"
    }

    /// Letters, marks and numbers: what CharacterSet.alphanumerics holds.
    private static let alphanumeric: Set<Unicode.GeneralCategory> = [
        .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
        .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber]
}

/// The `lector` program a person ran. lector-tools is exec'd by it (`LocalCommand`, which sets
/// `LECTOR_CLI`), and `lector doctor` looks for Lector's other programs as that CLI would
/// (`OwnExecutable.sibling(named:besideProgram:)`), not from libexec where lector-tools is.
///
///     OwnExecutable.sibling(named: "lectord", besideProgram: InvokingCLI.path)
public enum InvokingCLI {
    public static let variable = "LECTOR_CLI"

    /// `LECTOR_CLI` when it names a program, else this program itself.
    public static var path: String? {
        if let path = ProcessInfo.processInfo.environment[variable], path.hasPrefix("/") { return path }
        return OwnExecutable.path
    }
}
