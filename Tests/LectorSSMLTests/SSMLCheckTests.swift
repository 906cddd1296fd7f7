import LectorInterface
import LectorSSML
import XCTest

final class SSMLCheckTests: XCTestCase {
    /// The message of the error `text` is refused with, or nil if it is accepted.
    private func refusal(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            try SSMLCheck.validate(text)
            return nil
        } catch let error as LectorError {
            XCTAssertEqual(error.kind, .invalidArgument, file: file, line: line)
            return error.message
        } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
            return nil
        }
    }

    private func assertRefused(_ text: String, _ line: Int, _ column: Int, _ reasonPart: String,
                               file: StaticString = #filePath, callLine: UInt = #line) {
        guard let message = refusal(text, file: file, line: callLine) else {
            return XCTFail("accepted: \(text)", file: file, line: callLine)
        }
        XCTAssertTrue(message.hasPrefix("invalid SSML at line \(line), column \(column): "), message, file: file, line: callLine)
        XCTAssertTrue(message.contains(reasonPart), message, file: file, line: callLine)
    }

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
        assertRefused("<speak><break time=\"1s/></speak>", 1, 24, "ends the tag early")
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
