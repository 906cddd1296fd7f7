import Foundation
import FoundationXML
import LectorCore
import LectorTestKit
import XCTest

/// The live interfaces are the documented ones: dbus/io.github.lector.Lector1.xml and Narrator1.xml.
final class IntrospectionTests: XCTestCase {
    private static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testLiveIntrospectionMatchesTheDocumentedInterface() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }

        let result = try lector.call("Introspect", [], timeout: 10, interface: "org.freedesktop.DBus.Introspectable")
        XCTAssertTrue(result.succeeded, "\(result)")
        let xml = try XCTUnwrap(Self.gvariantString(result.stdout), "cannot read \(result.stdout)")
        // Both of Lector's own interfaces live on this object.
        for (file, interface) in [("Lector1", LectorFixture.interface), ("Narrator1", "io.github.lector.Narrator1")] {
            let documentedURL = Self.repositoryRoot.appendingPathComponent("dbus/io.github.lector.\(file).xml")
            let documented = try Self.members(ofInterface: interface,
                                              in: try String(contentsOf: documentedURL, encoding: .utf8))
            let live = try Self.members(ofInterface: interface, in: xml)
            XCTAssertGreaterThan(documented.count, 10, "too little found in \(documentedURL.path): \(documented)")
            let missing = documented.subtracting(live).sorted(), extra = live.subtracting(documented).sorted()
            XCTAssertEqual(missing, [], "\(interface): documented but not served:\n\(missing.joined(separator: "\n"))\nlive XML:\n\(xml)")
            XCTAssertEqual(extra, [], "\(interface): served but not documented:\n\(extra.joined(separator: "\n"))")
        }
        // The standard interfaces a client relies on come with it.
        for standard in ["org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable"] {
            XCTAssertTrue(xml.contains("<interface name=\"\(standard)\">"), "\(standard) missing")
        }
    }

    /// The MPRIS Player interface as served: the spec's members, less the optional Shuffle (a
    /// writable Shuffle that refused every write made KDE show a shuffle button that did nothing).
    func testMPRISPlayerServesTheSpecsMembersWithoutShuffle() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }
        let result = try lector.session.run("gdbus", ["call", "--session", "--dest", "org.mpris.MediaPlayer2.lector",
                                                      "--object-path", "/org/mpris/MediaPlayer2", "--method",
                                                      "org.freedesktop.DBus.Introspectable.Introspect"], timeout: 10)
        XCTAssertTrue(result.succeeded, "\(result)")
        let xml = try XCTUnwrap(Self.gvariantString(result.stdout), "cannot read \(result.stdout)")
        let live = try Self.members(ofInterface: "org.mpris.MediaPlayer2.Player", in: xml).filter { !$0.contains(" annotation ") }
        let expected: Set<String> = [
            "method Next", "method Previous", "method Pause", "method PlayPause", "method Stop", "method Play",
            "method Seek", "method Seek arg 0: in x Offset",
            "method SetPosition", "method SetPosition arg 0: in o TrackId", "method SetPosition arg 1: in x Position",
            "method OpenUri", "method OpenUri arg 0: in s Uri",
            "signal Seeked", "signal Seeked arg 0: out x Position",
            "property PlaybackStatus: s read", "property LoopStatus: s readwrite", "property Rate: d readwrite",
            "property Metadata: a{sv} read", "property Volume: d readwrite", "property Position: x read",
            "property MinimumRate: d read", "property MaximumRate: d read", "property CanGoNext: b read",
            "property CanGoPrevious: b read", "property CanPlay: b read", "property CanPause: b read",
            "property CanSeek: b read", "property CanControl: b read",
        ]
        XCTAssertFalse(live.contains { $0.hasPrefix("property Shuffle") }, "Shuffle is advertised:\n\(xml)")
        XCTAssertEqual(live.subtracting(expected).sorted(), [], "served but not expected")
        XCTAssertEqual(expected.subtracting(live).sorted(), [], "expected but not served")
        let shuffle = try lector.session.run("playerctl", ["-p", "lector", "shuffle"], timeout: 10)
        XCTAssertFalse(shuffle.succeeded && shuffle.stdout.contains("Off"), "playerctl still sees a Shuffle: \(shuffle)")
    }

    func testPropertiesAreReadableAndReadOnly() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }

        let version = try XCTUnwrap(try lector.property("Version") as? String)
        XCTAssertNotNil(version.range(of: #"^[0-9]+\.[0-9]+\.[0-9]+"#, options: .regularExpression), version)
        let voices = try XCTUnwrap(try lector.property("Voices") as? [[String]])
        XCTAssertTrue(voices.contains { $0[1].hasPrefix("en") }, "no English voice in \(voices.prefix(5))")
        XCTAssertTrue(voices.contains { $0[1] == "cmn" || $0[1].hasPrefix("zh") || $0[1].hasPrefix("cmn") },
                      "no Mandarin voice")

        let getAll = try lector.call("GetAll", ["'\(LectorFixture.interface)'"], interface: "org.freedesktop.DBus.Properties")
        XCTAssertTrue(getAll.succeeded && getAll.stdout.contains("'Version'") && getAll.stdout.contains("'Voices'"), "\(getAll)")

        let set = try lector.call("Set", ["'\(LectorFixture.interface)'", "'Version'", "<'9.9.9'>"],
                                  interface: "org.freedesktop.DBus.Properties")
        XCTAssertFalse(set.succeeded, "Version must be read-only: \(set)")
        XCTAssertTrue(set.stderr.contains("PropertyReadOnly") || set.stderr.contains("AccessDenied"), "\(set)")
        XCTAssertEqual(try lector.property("Version") as? String, version)

        let unknown = try lector.call("Frobnicate", [])
        XCTAssertTrue(unknown.stderr.contains("UnknownMethod"), "\(unknown)")
        lector.assertServing("after introspection")
    }

    // MARK: - Structural comparison

    /// One line per member, argument and annotation, independent of attribute order, whitespace
    /// and comments, e.g. "method Speak arg 0: in s text" or "property Voices: a(sss) read".
    static func members(ofInterface name: String, in xml: String) throws -> Set<String> {
        let document = try XMLDocument(xmlString: xml, options: [])
        let interfaces = try document.nodes(forXPath: "/node/interface[@name='\(name)']")
        guard let interface = interfaces.first as? XMLElement, interfaces.count == 1 else {
            throw TestKitError.failed("interface \(name) appears \(interfaces.count) times")
        }
        var lines = Set<String>()
        func attribute(_ element: XMLElement, _ key: String) -> String { element.attribute(forName: key)?.stringValue ?? "" }
        func annotations(of element: XMLElement, as owner: String) {
            for annotation in element.elements(forName: "annotation") {
                lines.insert("\(owner) annotation \(attribute(annotation, "name"))=\(attribute(annotation, "value"))")
            }
        }
        annotations(of: interface, as: "interface")
        for child in interface.children ?? [] {
            guard let element = child as? XMLElement else { continue }
            let kind = element.name ?? "?"
            let member = "\(kind) \(attribute(element, "name"))"
            switch kind {
            case "method", "signal":
                lines.insert(member)
                for (index, arg) in element.elements(forName: "arg").enumerated() {
                    var direction = attribute(arg, "direction")
                    if direction.isEmpty { direction = kind == "method" ? "in" : "out" }
                    lines.insert("\(member) arg \(index): \(direction) \(attribute(arg, "type")) \(attribute(arg, "name"))")
                    annotations(of: arg, as: "\(member) arg \(index)")
                }
            case "property":
                lines.insert("\(member): \(attribute(element, "type")) \(attribute(element, "access"))")
            case "annotation":
                continue
            default:
                lines.insert("unexpected element \(member)")
            }
            annotations(of: element, as: member)
        }
        return lines
    }

    /// The string of gdbus's `('…',)` reply, escapes resolved.
    static func gvariantString(_ output: String) -> String? {
        let text = output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("("), text.hasSuffix(",)") else { return nil }
        return GVariantText.unquoted(String(text.dropFirst().dropLast(2)))
    }

    /// The structural comparison itself must see differences (else the test above proves nothing).
    /// Every method's comment in the interface XML says which errors it returns, and every error
    /// name the daemon can send is explained in one of the two files.
    func testEveryMethodDocumentsItsErrors() throws {
        var documentedNames = ""
        for file in ["Lector1", "Narrator1"] {
            let url = Self.repositoryRoot.appendingPathComponent("dbus/io.github.lector.\(file).xml")
            let xml = try String(contentsOf: url, encoding: .utf8)
            documentedNames += xml
            var methods = 0
            var searchFrom = xml.startIndex
            while let method = xml.range(of: "<method name=\"", range: searchFrom..<xml.endIndex) {
                let nameEnd = try XCTUnwrap(xml.range(of: "\"", range: method.upperBound..<xml.endIndex))
                let name = String(xml[method.upperBound..<nameEnd.lowerBound])
                let before = xml[..<method.lowerBound]
                let comment = try XCTUnwrap(before.range(of: "<!--", options: .backwards), "\(file).\(name) has no comment")
                // The comment must be this method's own: nothing but whitespace after it.
                let commentEnd = try XCTUnwrap(before.range(of: "-->", options: .backwards))
                XCTAssertTrue(before[commentEnd.upperBound...].allSatisfy(\.isWhitespace), "\(file).\(name): no comment right above it")
                let text = before[comment.upperBound..<commentEnd.lowerBound]
                XCTAssertTrue(text.contains("Errors:"), "\(file).\(name) does not say which errors it returns:\n\(text)")
                methods += 1
                searchFrom = nameEnd.upperBound
            }
            XCTAssertGreaterThan(methods, 5, file)
        }
        for kind in LectorError.Kind.allCases {
            XCTAssertTrue(documentedNames.contains(kind.rawValue), "\(kind.rawValue) is explained in neither interface file")
        }
    }

    func testStructuralComparisonNoticesDifferences() throws {
        let base = """
            <node><!-- c --><interface name="x.Y"><method name="M"><arg type="s" name="a" direction="in"/>
            <arg type="t" name="id" direction="out"/></method><signal name="S"><arg type="t" name="id"/></signal>
            <property name="P" type="s" access="read"><annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="const"/></property>
            </interface></node>
            """
        let reordered = """
            <node>
              <interface name="x.Y">
                <method name="M"><arg direction="in" name="a" type="s"/><arg name="id" type="t" direction="out"/></method>
                <signal name="S"><arg name="id" type="t"/></signal>
                <property access="read" type="s" name="P">
                  <annotation value="const" name="org.freedesktop.DBus.Property.EmitsChangedSignal"/>
                </property>
              </interface>
            </node>
            """
        let reference = try Self.members(ofInterface: "x.Y", in: base)
        XCTAssertEqual(reference, try Self.members(ofInterface: "x.Y", in: reordered))
        for mutation in [("type=\"s\" name=\"a\"", "type=\"u\" name=\"a\""), ("name=\"id\" direction=\"out\"", "name=\"ident\" direction=\"out\""),
                         ("access=\"read\"", "access=\"readwrite\""), ("value=\"const\"", "value=\"true\""),
                         ("<signal name=\"S\"><arg type=\"t\" name=\"id\"/></signal>", "")] {
            let changed = base.replacingOccurrences(of: mutation.0, with: mutation.1)
            XCTAssertNotEqual(changed, base, "mutation \(mutation) did not apply")
            XCTAssertNotEqual(reference, try Self.members(ofInterface: "x.Y", in: changed), "\(mutation) not noticed")
        }
    }
}

extension LectorFixture {
    /// `gdbus call` of any interface's method on the Lector object.
    func call(_ method: String, _ arguments: [String], timeout: TimeInterval = 15, interface: String) throws -> ProcessResult {
        try session.run("gdbus", ["call", "--session", "--dest", Self.service, "--object-path", Self.objectPath,
                                  "--method", "\(interface).\(method)"] + arguments, timeout: timeout)
    }
}
