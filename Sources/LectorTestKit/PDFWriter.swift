import Foundation

/// A small but complete PDF 1.4: one page with one line of text, a binary comment line after the
/// header as PDF writers put one, and a correct cross-reference table. For tests that a PDF is
/// refused as a PDF (whatever its name), never read as text.
///
/// ```swift
/// try PDFWriter.data(saying: "Hello PDF").write(to: directory.appendingPathComponent("paper.pdf"))
/// ```
public enum PDFWriter {
    public static func data(saying text: String) -> Data {
        let content = "BT /F1 12 Tf 20 50 Td (\(text)) Tj ET"
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
        var data = Data("%PDF-1.4\n".utf8) + Data([0x25, 0xE2, 0xE3, 0xCF, 0xD3, 0x0A])
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(data.count)
            data += Data("\(index + 1) 0 obj\n\(object)\nendobj\n".utf8)
        }
        let xref = data.count
        data += Data("xref\n0 \(objects.count + 1)\n0000000000 65535 f \n".utf8)
        for offset in offsets { data += Data(String(format: "%010d 00000 n \n", offset).utf8) }
        data += Data("trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        return data
    }
}
