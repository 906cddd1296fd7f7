import LectorInterface
import LectorSSML
import LectorTestKit
import XCTest

/// The message of the error `text` is refused with, or nil if it is accepted.
func refusal(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
    do {
        try SSMLCheck.validate(text)
        return nil
    } catch {
        XCTAssertEqual(error.kind, .invalidArgument, file: file, line: line)
        return error.message
    }
}

func assertRefused(_ text: String, _ line: Int, _ column: Int, _ reasonPart: String,
                   file: StaticString = #filePath, callLine: UInt = #line) {
    guard let message = refusal(text, file: file, line: callLine) else {
        return XCTFail("accepted: \(text)", file: file, line: callLine)
    }
    XCTAssertTrue(message.hasPrefix("invalid SSML at line \(line), column \(column): "), message, file: file, line: callLine)
    XCTAssertTrue(message.contains(reasonPart), message, file: file, line: callLine)
}

/// SSMLCheck: libxml2's well-formedness errors and espeak-ng's own rules, each refusal with its
/// line, column and a reason that names the problem; hostile texts refused quickly and safely.
final class SSMLCheckTests: XCTestCase {
    func testAcceptsWhatEspeakUnderstands() {
        let documents = [
            "<speak>Hello</speak>",
            "<speak/>",
            "\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<speak version=\"1.0\" xmlns=\"http://www.w3.org/2001/10/synthesis\" xml:lang=\"en-US\">Hi</speak>",
            "<speak><voice name=\"en-gb\" gender=\"female\" age=\"30\" variant=\"2\">Hi</voice></speak>",
            "<speak><prosody rate=\"x-fast\" pitch=\"+10%\" volume=\"-6dB\" range=\"x-low\">a</prosody></speak>",
            "<speak><prosody rate=\"1.5\" pitch=\"+2st\">a</prosody><prosody pitch=\"120Hz\">b</prosody></speak>",
            "<speak><say-as interpret-as=\"characters\" format=\"glyphs\">abc</say-as> <say-as interpret-as=\"tts:digits\" detail=\"2\">1234</say-as></speak>",
            "<speak><mark name=\"here\"/><s xml:lang=\"fr\">Bonjour</s><p>Para</p></speak>",
            "<speak><sub alias=\"World Wide Web\">WWW</sub> <emphasis level=\"strong\">now</emphasis></speak>",
            "<speak><tts:style field=\"punctuation\" mode=\"all\">a, b.</tts:style></speak>",
            "<speak><break/><break strength=\"x-strong\"/><break time=\"500ms\"/><break time=\"2s\" /></speak>",
            "<speak><audio src=\"ding.wav\">ding</audio></speak>",
            "<speak><metadata><rdf:RDF xmlns:rdf=\"x\"><rdf:Description about=\"y\"/></rdf:RDF></metadata>Hi</speak>",
            "<speak>Tom &amp; Jerry &lt;3 &#233;t&#xE9; &quot;ok&apos; 5 > 3</speak>",
            "<speak>a <!-- a comment --> b</speak>\n<!-- after -->\n",
            "<speak>\r\n  Zwei\r\n</speak>",
            "<speak>支付宝到账<say-as interpret-as=\"characters\">35</say-as>元</speak>",
            // The declared encoding is ignored: a Speak text is a D-Bus string, always UTF-8.
            "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><speak>café</speak>",
            "<?xml version=\"1.0\" encoding=\"UTF-16\"?><speak>a</speak>",
            "<speak>50 %pe; of it</speak>",
            "<speak><break time=\"1s\"><!-- a comment --></break></speak>",
            "<speak><audio src=\"a.wav\"/>" + String(repeating: "<prosody rate=\"fast\">", count: 18) + "<audio src=\"b.wav\"/>x"
                + String(repeating: "</prosody>", count: 18) + "</speak>",
        ]
        for document in documents {
            XCTAssertNil(refusal(document), document)
        }
    }

    // MARK: well-formedness

    func testUnclosedAndMismatchedTags() {
        assertRefused("<speak>Hello <emphasis>world</speak>", 1, 29, "</speak> does not match <emphasis> opened at line 1, column 14")
        assertRefused("<speak>\n  <p>Hello\n", 2, 3, "<p> is never closed")
        assertRefused("<speak>Hi</speak></p>", 1, 18, "</p> closes nothing")
        assertRefused("<speak>Hi <p", 1, 11, "never closed with \">\"")
        assertRefused("<speak>Hi</speak >x", 1, 19, "text after </speak>")
    }

    func testRootMustBeSpeak() {
        assertRefused("Hello", 1, 1, "text before <speak>")
        assertRefused("<voice>Hello</voice>", 1, 1, "the root element must be <speak>")
        assertRefused("", 1, 1, "no <speak> element")
        assertRefused("  \n", 2, 1, "no <speak> element")
        assertRefused("<speak>a</speak><speak>b</speak>", 1, 17, "exactly one <speak>")
        assertRefused("<speak><speak>a</speak></speak>", 1, 8, "<speak> can only be the root")
        assertRefused("<Speak>a</Speak>", 1, 1, "the root element must be <speak>")
    }

    func testAttributesMustBeQuotedAndUnique() {
        assertRefused("<speak><break time=500ms/></speak>", 1, 20, "must be in quotes")
        assertRefused("<speak><break time/></speak>", 1, 15, "has no value")
        assertRefused("<speak><break time=\"1s\" time=\"2s\"/></speak>", 1, 25, "given twice")
        assertRefused("<speak><break time=\"1s\"strength=\"weak\"/></speak>", 1, 24, "unexpected \"s\"")
        // libxml2 reads the value on to the "<" of </speak>; the quote it never found is the mistake.
        assertRefused("<speak><break time=\"1s/></speak>", 1, 20, "the value of \"time\" is never closed: add its closing \"")
        assertRefused("<speak><sub alias=\"x<y\">z</sub></speak>", 1, 21, "\"<\" is not allowed in an attribute value")
        assertRefused("<speak><sub alias='say \"hi\"'>x</sub></speak>", 1, 24, "ends every attribute value")
        assertRefused("<speak><sub alias=\"A &amp; B\">x</sub></speak>", 1, 22, "does not decode entities")
    }

    func testEntitiesAndCharacters() {
        assertRefused("<speak>Tom & Jerry</speak>", 1, 12, "\"&\" must start an entity")
        assertRefused("<speak>a&nbsp;b</speak>", 1, 9, "unknown entity &nbsp;")
        assertRefused("<speak>&#0;</speak>", 1, 8, "not a valid character reference")
        assertRefused("<speak>&#xD800;</speak>", 1, 8, "not a valid character reference")
        assertRefused("<speak>a\u{1}b</speak>", 1, 9, "U+1 is not allowed in XML")
        assertRefused("<speak><sub alias=\"a\u{1}\">x</sub></speak>", 1, 21, "U+1 is not allowed in XML")
        assertRefused("<speak>1 < 2</speak>", 1, 10, "write &lt;")
        assertRefused("<speak>a]]>b</speak>", 1, 9, "\"]]>\" is not allowed")
    }

    func testMarkupEspeakMisreads() {
        assertRefused("<speak>a <!-- x > y --> b</speak>", 1, 17, "ends it early for espeak-ng")
        assertRefused("<speak>a <!-- x -- y --> b</speak>", 1, 17, "\"--\" is not allowed")
        assertRefused("<speak>a <!-- open</speak>", 1, 10, "never closed with \"-->\"")
        assertRefused("<speak><![CDATA[1 < 2]]></speak>", 1, 8, "CDATA")
        assertRefused("<!DOCTYPE speak><speak>a</speak>", 1, 1, "<!DOCTYPE>")
        assertRefused("<speak><?php echo 1 ?></speak>", 1, 8, "processing instructions")
        assertRefused("<speak>a</speak><?xml version=\"1.0\"?>", 1, 17, "XML declaration must come first")
        assertRefused("<speak><sub alias=\"a > b\">x</sub></speak>", 1, 22, "ends the tag early")
        let long = String(repeating: "x", count: 600)
        assertRefused("<speak><sub alias=\"\(long)\">x</sub></speak>", 1, 8, "espeak-ng reads at most 500")
    }

    // MARK: espeak-ng's vocabulary

    func testElementsEspeakDoesNotSupport() {
        assertRefused("<speak>Hi <b>there</b></speak>", 1, 11, "<b> is not an element espeak-ng supports")
        assertRefused("<speak><phoneme ph=\"h@l\">x</phoneme></speak>", 1, 8, "<phoneme> is not supported by espeak-ng 1.51")
        assertRefused("<speak><lexicon uri=\"x\"/></speak>", 1, 8, "<lexicon> is not an element")
        assertRefused("<speak><Prosody rate=\"fast\">a</Prosody></speak>", 1, 8, "lowercase, <prosody>")
        assertRefused("<speak>\n\n   <audio src=\"a.wav\"><desc>x</desc></audio></speak>", 3, 23, "<desc> is not an element")
    }

    func testAttributesEspeakDoesNotRead() {
        assertRefused("<speak><prosody duration=\"2s\">a</prosody></speak>", 1, 17, "<prosody> has no attribute \"duration\"")
        assertRefused("<speak><voice languages=\"en\">a</voice></speak>", 1, 15, "no attribute \"languages\"")
        assertRefused("<speak><mark/></speak>", 1, 8, "<mark> needs the name attribute")
        assertRefused("<speak><sub>WWW</sub></speak>", 1, 8, "<sub> needs the alias attribute")
        assertRefused("<speak><say-as>1</say-as></speak>", 1, 8, "needs the interpret-as attribute")
    }

    func testValuesEspeakDoesNotKnow() {
        assertRefused("<speak><say-as interpret-as=\"date\">1/2</say-as></speak>", 1, 16, "interpret-as=\"date\" is not one espeak-ng knows")
        assertRefused("<speak><break time=\"1.5s\"/></speak>", 1, 15, "espeak-ng would pause only 1 ms")
        assertRefused("<speak><break time=\"soon\"/></speak>", 1, 15, "not whole milliseconds or seconds")
        assertRefused("<speak><break strength=\"huge\"/></speak>", 1, 15, "strength=\"huge\"")
        assertRefused("<speak><emphasis level=\"loud\">a</emphasis></speak>", 1, 18, "level=\"loud\"")
        assertRefused("<speak><prosody rate=\"quick\">a</prosody></speak>", 1, 17, "rate=\"quick\" is not a value espeak-ng reads")
        assertRefused("<speak><prosody pitch=\"+10dB\">a</prosody></speak>", 1, 17, "pitch=\"+10dB\"")
        assertRefused("<speak><voice gender=\"other\">a</voice></speak>", 1, 15, "gender=\"other\"")
        assertRefused("<speak><voice age=\"old\">a</voice></speak>", 1, 15, "must be a whole number")
        assertRefused("<speak><tts:style field=\"punctuation\" mode=\"spelling\">a</tts:style></speak>", 1, 8, "mode=\"spelling\"")
        assertRefused("<speak><tts:style field=\"punctuation\">a</tts:style></speak>", 1, 8, "needs a mode")
    }

    func testEmptyElementsMustStayEmpty() {
        assertRefused("<speak><break time=\"1s\">pause</break></speak>", 1, 25, "<break> must be empty")
        assertRefused("<speak><mark name=\"m\"><s>a</s></mark></speak>", 1, 23, "<mark> must be empty")
        XCTAssertNil(refusal("<speak><break time=\"1s\"></break></speak>"))
    }

    func testPositionsCountScalarsAndAllLineEnds() {
        assertRefused("<speak>\r\n支付宝 <b>x</b></speak>", 2, 5, "<b>")
        assertRefused("<speak>\r\r<b>x</b></speak>", 3, 1, "<b>")
        assertRefused("<speak>\n\tcafé 👋 <b>x</b></speak>", 2, 9, "<b>")
    }
}

/// What libxml2 reads that the hand-written checker it replaced got wrong, and broken markup
/// the old tests did not cover.
final class SSMLWellFormednessTests: XCTestCase {
    func testMalformedXMLDeclarationsAreRefused() {
        // The hand-written checker skipped everything between "<?xml " and "?>".
        assertRefused("<?xml encoding=\"UTF-8\"?><speak/>", 1, 1, "the XML declaration is not valid")
        assertRefused("<?xml garbage ?><speak/>", 1, 1, "write <?xml version=\"1.0\"?> or leave it out")
        assertRefused("<?xml version=\"1.0\" standalone=\"maybe\"?><speak/>", 1, 1, "standalone accepts only 'yes' or 'no'")
        assertRefused(" <?xml version=\"1.0\"?><speak/>", 1, 2, "the XML declaration must come first")
    }

    func testNamesXMLDoesNotAllowAreRefused() {
        // It took any letter or number for a name character; XML's name characters are fewer.
        // The vocabulary refuses bad names outside <metadata>, so these were accepted.
        assertRefused("<speak><metadata><ªb/></metadata></speak>", 1, 18, "an XML name cannot start with \"ª\"")
        assertRefused("<speak><metadata><\u{345}x/></metadata></speak>", 1, 18, "an XML name cannot start with")
        assertRefused("<speak><metadata><x²/></metadata></speak>", 1, 20, "unexpected \"²\" in the tag <x²>")
        assertRefused("<speak xmlns:a²=\"x\">a</speak>", 1, 15, "unexpected \"²\" in the tag <speak>")
        assertRefused("<speak>a <1></speak>", 1, 10, "an XML name cannot start with \"1\"")
    }

    func testBrokenTagsSayWhereAndWhatToWrite() {
        assertRefused("<speak>Hi <p a=\"b\"", 1, 11, "the tag <p> is never closed with \">\"")
        assertRefused("<speak>x</speak", 1, 9, "the closing tag </speak> must end with \">\"")
        assertRefused("<speak></speak ", 1, 8, "the closing tag </speak> must end with \">\"")
        assertRefused("<speak><break/ ></speak>", 1, 14, "unexpected \"/\" in the tag <break>")
        assertRefused("<speak a=\"1\" b='2' a=\"3\"/>", 1, 20, "attribute \"a\" is given twice")
        assertRefused("<speak><sub alias=\"" + String(repeating: "v", count: 100), 1, 19, "the value of \"alias\" is never closed with \"")
        assertRefused("<speak>&amp</speak>", 1, 8, "&amp must end with \";\"")
        assertRefused("<speak>&#65</speak>", 1, 8, "&#65 must end with \";\"")
        assertRefused("<speak> < </speak>", 1, 9, "\"<\" must start a tag")
        assertRefused("<speak><sub alias=\"a &nbsp; b\">x</sub></speak>", 1, 22, "espeak-ng does not decode entities there")
        assertRefused("<speak>a <!-- x --->b</speak>", 1, 17, "\"--\" is not allowed inside a comment")
        assertRefused("<speak>a</speak><!-- c --> <?pi x?>", 1, 28, "processing instructions")
        assertRefused("<!-- only a comment -->", 1, 24, "no <speak> element")
        assertRefused("<!-- c -->\n hello <speak/>", 2, 2, "text before <speak>")
        assertRefused("<speak><break time=\"1s\"><!-- c -->&amp;</break></speak>", 1, 35, "<break> must be empty")
    }
}

/// Texts built to hurt: every one refused (or accepted) with a position, none crashes, none
/// reads a file or expands an entity, none costs more than its bounded size.
final class SSMLHostileInputTests: XCTestCase {
    private func scalar(_ value: UInt32) -> String { String(Unicode.Scalar(value)!) }

    func testNULNeverReachesTheParser() {
        assertRefused("<speak>a\u{0}b</speak>", 1, 9, "character U+0 is not allowed in XML")
        // NUL bytes at the start would make libxml2 read UTF-16 ("<speak/>" with NULs between is one).
        assertRefused("\u{0}<\u{0}s\u{0}p\u{0}e\u{0}a\u{0}k\u{0}/\u{0}>", 1, 1, "character U+0")
        assertRefused("\u{0}<\u{0}?\u{0}x\u{0}m\u{0}l\u{0} ", 1, 1, "character U+0")
    }

    func testCharactersOutsideXMLAreRefusedWhereverTheyAre() {
        assertRefused("<speak>a" + scalar(0xFFFE) + "b</speak>", 1, 9, "character U+FFFE is not allowed in XML")
        assertRefused("<speak>a" + scalar(0xFFFF) + "b</speak>", 1, 9, "character U+FFFF")
        assertRefused("<speak><sub alias=\"" + scalar(0xFFFF) + "\">x</sub></speak>", 1, 20, "character U+FFFF")
        assertRefused("<speak\u{1}>a</speak>", 1, 7, "character U+1")
        assertRefused("<speak><!-- \u{1} --></speak>", 1, 13, "character U+1")
        assertRefused("<speak><?p " + scalar(0xFFFE) + "?></speak>", 1, 12, "character U+FFFE")
        // Other noncharacters are XML characters (sd-bus refuses them before the daemon sees them).
        XCTAssertNil(refusal("<speak>a" + scalar(0xFDD0) + "b" + scalar(0x1FFFE) + "</speak>"))
    }

    func testNoEntityIsDeclaredOrFetched() {
        let laughs = "<!DOCTYPE speak [<!ENTITY a \"aaaaaaaaaa\">"
            + (1...9).map { "<!ENTITY a\($0) \"" + String(repeating: "&a\($0 == 1 ? "" : String($0 - 1));", count: 10) + "\">" }.joined()
            + "]><speak>&a9;</speak>"
        assertRefused(laughs, 1, 1, "<!DOCTYPE> are not allowed")
        assertRefused("<!DOCTYPE speak SYSTEM \"file:///etc/passwd\"><speak>&xxe;</speak>", 1, 1, "<!DOCTYPE> are not allowed")
        assertRefused("<speak>\n<!DOCTYPE x></speak>", 2, 1, "<!DOCTYPE> are not allowed")
        assertRefused("<speak>&xxe;</speak>", 1, 8, "unknown entity &xxe;")
        assertRefused("<speak><sub alias=\"&xxe;\">x</sub></speak>", 1, 20, "espeak-ng does not decode entities there")
    }

    /// The entity attacks the books are tested with (issue 21): SSML never reads an internal
    /// subset, so each is refused at its DOCTYPE, at once.
    func testEveryEntityAttackIsRefusedAtItsDoctype() {
        for attack in EntityAttack.allCases {
            let start = ContinuousClock.now
            assertRefused(attack.doctype(root: "speak") + "<speak>x" + attack.reference + "</speak>", 1, 1,
                          "<!DOCTYPE> are not allowed")
            print("SSML entity attack \(attack.rawValue): \(ContinuousClock.now - start)")
        }
    }

    func testNestingIsCapped() {
        let depth = 33
        let deep = "<speak>" + String(repeating: "<s>", count: depth - 1) + "x" + String(repeating: "</s>", count: depth - 1) + "</speak>"
        assertRefused(deep, 1, 8 + 3 * (depth - 2), "nested more than 32 deep")
        XCTAssertNil(refusal("<speak>" + String(repeating: "<s>", count: 31) + "x" + String(repeating: "</s>", count: 31) + "</speak>"))
        // Never closed, up to the size limit: stopped at the cap, not at libxml2's 256 or the end.
        assertRefused("<speak>" + String(repeating: "<p>", count: 21_000), 1, 8 + 3 * 31, "nested more than 32 deep")
    }

    func testEspeakKeepsEighteenNestedProsodyLevels() {
        let open = String(repeating: "<prosody rate=\"fast\">", count: 18), close = String(repeating: "</prosody>", count: 18)
        XCTAssertNil(refusal("<speak>" + open + "x" + close + "</speak>"))
        let nineteenth = "<speak>" + String(repeating: "<emphasis>", count: 10) + String(repeating: "<prosody rate=\"fast\">", count: 9)
        assertRefused(nineteenth + "x", 1, 8 + 10 * 10 + 21 * 8, "<prosody> is the 19th nested <prosody>, <emphasis>, <tts:style> or <audio>")
        // <metadata> holds no SSML.
        XCTAssertNil(refusal("<speak><metadata>" + String(repeating: "<prosody>", count: 20) + String(repeating: "</prosody>", count: 20)
            + "</metadata>x</speak>"))
    }

    func testTextsAtTheSizeLimit() {
        let limit = 65_536
        /// How many `unit`s fill a text of `limit` bytes between `prefix` and `suffix`.
        func units(_ unit: String, _ prefix: String, _ suffix: String) -> Int {
            (limit - prefix.utf8.count - suffix.utf8.count) / unit.utf8.count
        }
        func filled(_ unit: String, _ prefix: String = "<speak>", _ suffix: String = "</speak>") -> String {
            prefix + String(repeating: unit, count: units(unit, prefix, suffix)) + suffix
        }
        XCTAssertNil(refusal(filled("word ")))
        XCTAssertNil(refusal(filled("<!--c-->")))
        XCTAssertNil(refusal(filled("<break/>")))
        XCTAssertNil(refusal(filled("&#233;")))
        XCTAssertNil(refusal(filled("<mark name=\"m\"/>a")))
        // A mistake at the very end is found there, lines and columns counted to it.
        assertRefused(filled("wörd\n", "<speak>", "&</speak>"), units("wörd\n", "<speak>", "&</speak>") + 1, 1, "\"&\" must start an entity")
        assertRefused(filled("wörd ", "<speak>", "\u{1}</speak>"), 1, 8 + 5 * units("wörd ", "<speak>", "\u{1}</speak>"), "character U+1")
        // Past the buffer libxml2 reads in (and discards behind it): offsets still land on the tag.
        let paragraph = "<p>café <break time=\"1s\"/></p>\n", last = "<break time=\"soon\"/></speak>"
        assertRefused(filled(paragraph, "<speak>", last), units(paragraph, "<speak>", last) + 1, 8, "time=\"soon\"")
        // One huge tag, comment, value or run of brackets.
        var crowded = "<speak><metadata><x", index = 0
        while crowded.utf8.count < limit - 100 { crowded += " a\(index)=\"\""; index += 1 }
        assertRefused(crowded + "/></metadata></speak>", 1, 18, "espeak-ng reads at most 500")
        assertRefused(crowded + " a0=\"\"/></metadata></speak>", 1, crowded.count + 2, "attribute \"a0\" is given twice")
        assertRefused(filled("v", "<speak><sub alias=\"", "\">x</sub></speak>"), 1, 8, "espeak-ng reads at most 500")
        assertRefused(filled("c ", "<speak><!--", ""), 1, 8, "the comment is never closed")
        assertRefused(filled("<", "<speak>", ""), 1, 8, "\"<<\" starts no tag")
        assertRefused(filled("&", "<speak>", ""), 1, 8, "\"&\" must start an entity")
        assertRefused(filled("</s>", "<speak>", ""), 1, 8, "</s> does not match <speak> opened at line 1, column 1")
        assertRefused(filled("<b>", "<speak>", ""), 1, 8, "<b> is not an element espeak-ng supports")
    }
}
