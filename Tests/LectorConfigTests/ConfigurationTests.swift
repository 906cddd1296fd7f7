import LectorConfig
import XCTest

/// Parses `text` and returns the configuration, failing the test on an error.
private func parse(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Configuration? {
    do {
        return try Configuration.parse(text, file: "config.toml")
    } catch {
        XCTFail("unexpected error: \(error)", file: file, line: line)
        return nil
    }
}

/// Asserts that `text` is refused with exactly `expected` ("config.toml:LINE: REASON").
private func assertRefused(_ text: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
    do {
        let configuration = try Configuration.parse(text, file: "config.toml")
        XCTFail("expected \(expected), but it parsed as \(configuration)", file: file, line: line)
    } catch let error as ConfigError {
        XCTAssertEqual(error.description, expected, file: file, line: line)
    } catch {
        XCTFail("not a ConfigError: \(error)", file: file, line: line)
    }
}

final class DefaultsTests: XCTestCase {
    func testDefaults() {
        let defaults = Configuration()
        XCTAssertEqual(defaults.speech.rate, 1.0)
        XCTAssertEqual(defaults.speech.pitch, 1.0)
        XCTAssertEqual(defaults.speech.volume, 1.0)
        XCTAssertEqual(defaults.voices, [:])
        XCTAssertEqual(defaults.audio.duckLevel, 0.3)
        XCTAssertEqual(defaults.audio.duckRampMilliseconds, 30)
        XCTAssertEqual(defaults.audio.volumeFloor, 0.2)
        XCTAssertEqual(defaults.audio.autoResumeTimeoutMinutes, 30)
        XCTAssertFalse(defaults.notifications.enabled)
        XCTAssertEqual(defaults.notifications.allow, [])
        XCTAssertFalse(defaults.notifications.readBody)
        XCTAssertNil(defaults.notifications.quietHours)
        XCTAssertEqual(defaults.books.notes, .afterParagraph)
        XCTAssertEqual(defaults.books.images, .read)
    }

    func testEmptyFilesAreTheDefaults() {
        XCTAssertEqual(parse(""), Configuration())
        XCTAssertEqual(parse("\n\n   \n\t\n"), Configuration())
        XCTAssertEqual(parse("# only a comment"), Configuration())
        XCTAssertEqual(parse("[speech]\n[voices]\n[audio]\n[notifications]\n"), Configuration())
    }

    func testKeysNotWrittenKeepTheirDefaults() {
        let configuration = parse("[speech]\nrate = 1.5\n")
        var expected = Configuration()
        expected.speech.rate = 1.5
        XCTAssertEqual(configuration, expected)
    }

    func testDefaultPath() {
        XCTAssertEqual(Configuration.defaultPath(environment: ["XDG_CONFIG_HOME": "/x/conf", "HOME": "/home/a"]),
                       "/x/conf/lector/config.toml")
        XCTAssertEqual(Configuration.defaultPath(environment: ["XDG_CONFIG_HOME": "/x/conf/", "HOME": "/home/a"]),
                       "/x/conf/lector/config.toml")
        XCTAssertEqual(Configuration.defaultPath(environment: ["HOME": "/home/a"]), "/home/a/.config/lector/config.toml")
        XCTAssertEqual(Configuration.defaultPath(environment: ["XDG_CONFIG_HOME": "", "HOME": "/home/a"]),
                       "/home/a/.config/lector/config.toml")
        // The XDG base directory spec: a relative path is invalid and ignored.
        XCTAssertEqual(Configuration.defaultPath(environment: ["XDG_CONFIG_HOME": "conf", "HOME": "/home/a/"]),
                       "/home/a/.config/lector/config.toml")
        XCTAssertEqual(Configuration.defaultPath(environment: [:]), "/.config/lector/config.toml")
    }
}

final class EveryKeyTests: XCTestCase {
    static let full = """
        # Lector's settings
        [speech]
        rate = 1.4
        pitch = 0.8
        volume = 0.9

        [voices]
        en = "en-gb"
        "zh-CN" = "cmn"
        'pt-BR' = 'pt-br'
        de_AT = "de"

        [audio]
        duck-level = 0.25
        duck-ramp-ms = 120
        volume-floor = 0.35
        auto-resume-timeout-minutes = 45

        [notifications]
        enabled = true
        allow = ["Thunderbird", "Signal", "org.gnome.Calendar"]
        read-body = true
        quiet-hours = "22:30-07:15"

        [books]
        notes = "end-of-chapter"
        images = "skip"
        """

    func testEveryKey() throws {
        let configuration = try XCTUnwrap(parse(Self.full))
        XCTAssertEqual(configuration.speech.rate, 1.4)
        XCTAssertEqual(configuration.speech.pitch, 0.8)
        XCTAssertEqual(configuration.speech.volume, 0.9)
        XCTAssertEqual(configuration.voices, ["en": "en-gb", "zh-CN": "cmn", "pt-BR": "pt-br", "de_AT": "de"])
        XCTAssertEqual(configuration.audio.duckLevel, 0.25)
        XCTAssertEqual(configuration.audio.duckRampMilliseconds, 120)
        XCTAssertEqual(configuration.audio.volumeFloor, 0.35)
        XCTAssertEqual(configuration.audio.autoResumeTimeoutMinutes, 45)
        XCTAssertTrue(configuration.notifications.enabled)
        XCTAssertEqual(configuration.notifications.allow, ["Thunderbird", "Signal", "org.gnome.Calendar"])
        XCTAssertTrue(configuration.notifications.readBody)
        XCTAssertEqual(configuration.notifications.quietHours, QuietHours(startMinute: 22 * 60 + 30, endMinute: 7 * 60 + 15))
        XCTAssertEqual(configuration.books.notes, .endOfChapter)
        XCTAssertEqual(configuration.books.images, .skip)
    }

    func testBookChoices() {
        XCTAssertEqual(parse("[books]\nnotes = \"skip\"")?.books.notes, .skip)
        XCTAssertEqual(parse("[books]\nnotes = 'after-paragraph'")?.books.notes, .afterParagraph)
        XCTAssertEqual(parse("[books]\nimages = \"read\"")?.books.images, .read)
        XCTAssertEqual(parse("[books]\nimages = \"skip\"")?.books.notes, .afterParagraph, "a key not written keeps its default")
    }

    func testSectionsInAnyOrder() {
        let configuration = parse("[notifications]\nenabled = true\n[speech]\nrate = 2\n")
        XCTAssertEqual(configuration?.notifications.enabled, true)
        XCTAssertEqual(configuration?.speech.rate, 2.0)
    }

    func testRangeBoundsAreAccepted() {
        let cases: [(String, (Configuration) -> Bool)] = [
            ("[speech]\nrate = 0.5", { $0.speech.rate == 0.5 }),
            ("[speech]\nrate = 2.5", { $0.speech.rate == 2.5 }),
            ("[speech]\npitch = 0", { $0.speech.pitch == 0 }),
            ("[speech]\npitch = 2", { $0.speech.pitch == 2 }),
            ("[speech]\nvolume = 0.0", { $0.speech.volume == 0 }),
            ("[speech]\nvolume = 1", { $0.speech.volume == 1 }),
            ("[audio]\nduck-level = 0", { $0.audio.duckLevel == 0 }),
            ("[audio]\nduck-level = 1.0", { $0.audio.duckLevel == 1 }),
            ("[audio]\nduck-ramp-ms = 0", { $0.audio.duckRampMilliseconds == 0 }),
            ("[audio]\nduck-ramp-ms = 500", { $0.audio.duckRampMilliseconds == 500 }),
            ("[audio]\nvolume-floor = 0", { $0.audio.volumeFloor == 0 }),
            ("[audio]\nvolume-floor = 1", { $0.audio.volumeFloor == 1 }),
            ("[audio]\nauto-resume-timeout-minutes = 0", { $0.audio.autoResumeTimeoutMinutes == 0 }),
            ("[audio]\nauto-resume-timeout-minutes = 1440", { $0.audio.autoResumeTimeoutMinutes == 1440 }),
        ]
        for (text, check) in cases {
            guard let configuration = parse(text) else { continue }
            XCTAssertTrue(check(configuration), text)
        }
    }

    func testNumbers() {
        XCTAssertEqual(parse("[speech]\nrate = +1.25")?.speech.rate, 1.25)
        XCTAssertEqual(parse("[speech]\nrate = 15e-1")?.speech.rate, 1.5)
        XCTAssertEqual(parse("[speech]\nrate = 0.15E+1")?.speech.rate, 1.5)
        XCTAssertEqual(parse("[speech]\nrate = 1.2_5")?.speech.rate, 1.25)
        XCTAssertEqual(parse("[audio]\nduck-ramp-ms = 1_00")?.audio.duckRampMilliseconds, 100)
        XCTAssertEqual(parse("[audio]\nduck-ramp-ms = +7")?.audio.duckRampMilliseconds, 7)
        XCTAssertEqual(parse("[audio]\nduck-ramp-ms = -0")?.audio.duckRampMilliseconds, 0)
    }

    func testStringsAndEscapes() {
        let configuration = parse(#"""
            [notifications]
            allow = ["tab\there", "quote\"", "back\\slash", "\u00e9\U0001F600", 'C:\literal', "x"]
            """#)
        XCTAssertEqual(configuration?.notifications.allow, ["tab\there", "quote\"", "back\\slash", "é😀", #"C:\literal"#, "x"])
        XCTAssertEqual(parse("[notifications]\nallow = [\"#not a comment\"] # a comment")?.notifications.allow,
                       ["#not a comment"])
        XCTAssertEqual(parse("[notifications]\nallow = [\"日本語\"]")?.notifications.allow, ["日本語"])
    }

    func testArraysSpanLinesWithCommentsAndTrailingCommas() {
        let configuration = parse("""
            [notifications]
            allow = [
              "Thunderbird",   # mail
              # "Slack",
              "Signal",
            ]
            enabled = true
            """)
        XCTAssertEqual(configuration?.notifications.allow, ["Thunderbird", "Signal"])
        XCTAssertEqual(configuration?.notifications.enabled, true)
        XCTAssertEqual(parse("[notifications]\nallow = []")?.notifications.allow, [])
        XCTAssertEqual(parse("[notifications]\nallow = [ ]")?.notifications.allow, [])
        XCTAssertEqual(parse("[notifications]\nallow=[\"a\",\"b\"]")?.notifications.allow, ["a", "b"])
    }

    func testSpacingAndComments() {
        let configuration = parse("  [ speech ]  # the speech\n\trate\t=\t1.5\t# faster\nvolume=0.5#quieter\n")
        XCTAssertEqual(configuration?.speech.rate, 1.5)
        XCTAssertEqual(configuration?.speech.volume, 0.5)
        XCTAssertEqual(parse("[\"speech\"]\n\"rate\" = 2")?.speech.rate, 2)
    }

    func testQuietHours() {
        XCTAssertNil(parse("[notifications]\nquiet-hours = \"\"")?.notifications.quietHours)
        let night = QuietHours("22:00-07:00")
        XCTAssertEqual(night, QuietHours(startMinute: 1320, endMinute: 420))
        XCTAssertEqual(night?.description, "22:00-07:00")
        XCTAssertEqual(night?.contains(minuteOfDay: 23 * 60), true)
        XCTAssertEqual(night?.contains(minuteOfDay: 22 * 60), true)
        XCTAssertEqual(night?.contains(minuteOfDay: 3 * 60), true)
        XCTAssertEqual(night?.contains(minuteOfDay: 7 * 60), false)
        XCTAssertEqual(night?.contains(minuteOfDay: 12 * 60), false)
        let lunch = QuietHours("12:00-13:30")
        XCTAssertEqual(lunch?.contains(minuteOfDay: 12 * 60 + 59), true)
        XCTAssertEqual(lunch?.contains(minuteOfDay: 13 * 60 + 30), false)
        XCTAssertEqual(lunch?.contains(minuteOfDay: 11 * 60), false)
        XCTAssertEqual(QuietHours("00:00-23:59")?.description, "00:00-23:59")
        for bad in ["24:00-07:00", "22:60-07:00", "2:00-07:00", "22:00", "22:00-07:00-08:00", "22.00-07.00", "ab:cd-07:00", "22:00 - 07:00"] {
            XCTAssertNil(QuietHours(bad), bad)
        }
    }

    func testVoiceLookupFallsBackToShorterTags() throws {
        let configuration = try XCTUnwrap(parse("[voices]\nen = \"en-us\"\n\"en-GB\" = \"en-gb\"\nzh_CN = \"cmn\"\n"))
        XCTAssertEqual(configuration.voice(forLanguage: "en-GB"), "en-gb")
        XCTAssertEqual(configuration.voice(forLanguage: "en-gb"), "en-gb")
        XCTAssertEqual(configuration.voice(forLanguage: "en_GB"), "en-gb")
        XCTAssertEqual(configuration.voice(forLanguage: "en-AU"), "en-us")
        XCTAssertEqual(configuration.voice(forLanguage: "en"), "en-us")
        XCTAssertEqual(configuration.voice(forLanguage: "zh-CN"), "cmn")
        XCTAssertEqual(configuration.voice(forLanguage: "zh-Hans-CN"), nil)
        XCTAssertEqual(configuration.voice(forLanguage: "zh"), nil)
        XCTAssertEqual(configuration.voice(forLanguage: "de"), nil)
        XCTAssertEqual(configuration.voice(forLanguage: ""), nil)
    }

    func testErrorDescriptionIsFileLineReason() {
        let error = ConfigError(file: "/home/a/.config/lector/config.toml", line: 7, reason: "something is wrong")
        XCTAssertEqual(error.description, "/home/a/.config/lector/config.toml:7: something is wrong")
        XCTAssertEqual("\(error)", error.description)
    }
}

final class LineEndingTests: XCTestCase {
    func testCRLF() {
        let configuration = parse("[speech]\r\nrate = 1.5 # faster\r\n\r\n[notifications]\r\nallow = [\r\n  \"a\",\r\n]\r\n")
        XCTAssertEqual(configuration?.speech.rate, 1.5)
        XCTAssertEqual(configuration?.notifications.allow, ["a"])
        assertRefused("[speech]\r\n\r\nrate = 9\r\n", "config.toml:3: rate must be from 0.5 to 2.5, not 9")
        assertRefused("[speech]\r\n\r\nrate = fast\r\n", "config.toml:3: invalid value fast (strings need quotes, e.g. \"fast\")")
    }

    func testBareCarriageReturnIsRefused() {
        assertRefused("[speech]\rrate = 1", "config.toml:1: a carriage return must be followed by a line feed")
        assertRefused("[speech]\nrate = 1 # old mac\r", "config.toml:2: a carriage return must be followed by a line feed")
    }

    func testByteOrderMark() {
        XCTAssertEqual(parse("\u{FEFF}[speech]\nrate = 2")?.speech.rate, 2)
        XCTAssertEqual(try Configuration.parse(utf8: [0xEF, 0xBB, 0xBF] + Array("[speech]\nrate = 2\n".utf8), file: "f"),
                       parse("[speech]\nrate = 2"))
        // Only at the very start.
        assertRefused("[speech]\n\u{FEFF}rate = 2",
                      "config.toml:2: unexpected U+FEFF; expected a key (letters, digits, _ and -, or a quoted key)")
    }

    func testNoFinalNewline() {
        XCTAssertEqual(parse("[speech]\nrate = 2")?.speech.rate, 2)
        XCTAssertEqual(parse("[speech]\nrate = 2 # end")?.speech.rate, 2)
        XCTAssertEqual(parse("[speech]")?.speech, Configuration.Speech())
    }

    func testInvalidUTF8NamesItsLine() {
        XCTAssertThrowsError(try Configuration.parse(utf8: Array("[speech]\n\n# caf".utf8) + [0xE9, 0x0A], file: "c.toml")) {
            XCTAssertEqual($0 as? ConfigError, ConfigError(file: "c.toml", line: 3, reason: "the file is not valid UTF-8"))
        }
        XCTAssertEqual(try Configuration.parse(utf8: Array("[notifications]\nallow = [\"café\"]".utf8), file: "c.toml")
            .notifications.allow, ["café"])
    }
}

/// Every message, with the line it names.
final class ErrorTests: XCTestCase {
    func testUnknownSectionsAndKeys() {
        assertRefused("[speech]\nrate = 1\n\n[speach]\n",
                      "config.toml:4: unknown section [speach] (known sections: [speech], [voices], [audio], [notifications], [narration], [books])")
        assertRefused("[\"my section\"]", "config.toml:1: unknown section [\"my section\"] (known sections: [speech], [voices], [audio], [notifications], [narration], [books])")
        assertRefused("[books]\nfootnotes = \"skip\"", "config.toml:2: unknown key footnotes in [books] (known keys: notes, images)")
        assertRefused("[speech]\nspeed = 1.2", "config.toml:2: unknown key speed in [speech] (known keys: rate, pitch, volume)")
        assertRefused("[audio]\nduck_level = 0.2",
                      "config.toml:2: unknown key duck_level in [audio] (known keys: duck-level, duck-ramp-ms, volume-floor, auto-resume-timeout-minutes)")
        assertRefused("[notifications]\n\"read body\" = true",
                      "config.toml:2: unknown key \"read body\" in [notifications] (known keys: enabled, allow, read-body, quiet-hours)")
    }

    func testKeysOutsideSections() {
        assertRefused("# top\nrate = 1.2\n[speech]", "config.toml:2: key rate is outside any section; put it under [speech]")
        assertRefused("allow = []", "config.toml:1: key allow is outside any section; put it under [notifications]")
        assertRefused("colour = \"red\"",
                      "config.toml:1: key colour is outside any section; every key belongs to a section such as [speech]")
    }

    func testDuplicates() {
        assertRefused("[speech]\nrate = 1\npitch = 1\nrate = 2", "config.toml:4: rate is set twice in [speech] (first at line 2)")
        assertRefused("[speech]\nrate = 1\n[audio]\n[speech]\n", "config.toml:4: section [speech] appears twice (first at line 1); merge them")
        assertRefused("[voices]\nen = \"en\"\n\"en\" = \"en-us\"", "config.toml:3: en is set twice in [voices] (first at line 2)")
        // Language tags compare case-insensitively, _ as -.
        assertRefused("[voices]\nzh-CN = \"cmn\"\nzh_cn = \"cmn\"",
                      "config.toml:3: zh_cn is set twice in [voices] (first at line 2 as zh-CN)")
        // The same key in two sections is fine (none exists today, but voices may share a name).
        XCTAssertNotNil(parse("[voices]\nrate = \"en\"\n[speech]\nrate = 1"))
    }

    func testWrongTypes() {
        assertRefused("[speech]\nrate = \"fast\"", "config.toml:2: rate must be a number from 0.5 to 2.5, not a string")
        assertRefused("[speech]\npitch = true", "config.toml:2: pitch must be a number from 0 to 2, not a boolean")
        assertRefused("[speech]\nvolume = [1]", "config.toml:2: volume must be a number from 0 to 1, not an array")
        assertRefused("[audio]\nduck-ramp-ms = 30.5", "config.toml:2: duck-ramp-ms must be a whole number from 0 to 500, not a float (30.5)")
        assertRefused("[audio]\nauto-resume-timeout-minutes = \"30\"",
                      "config.toml:2: auto-resume-timeout-minutes must be a whole number from 0 to 1440, not a string")
        assertRefused("[audio]\nduck-level = \"30%\"", "config.toml:2: duck-level must be a number from 0 to 1, not a string")
        assertRefused("[notifications]\nenabled = \"true\"",
                      "config.toml:2: enabled must be true or false, not a string (no quotes around true or false)")
        assertRefused("[notifications]\nread-body = 1", "config.toml:2: read-body must be true or false, not an integer")
        assertRefused("[notifications]\nallow = \"Signal\"",
                      "config.toml:2: allow must be an array of application names such as [\"Thunderbird\"], not a string")
        assertRefused("[notifications]\nallow = [\n  \"Signal\",\n  42,\n]",
                      "config.toml:4: allow must hold application names (strings); item 2 is an integer")
        assertRefused("[notifications]\nallow = [\"a\", [\"b\"]]",
                      "config.toml:2: allow must hold application names (strings); item 2 is an array")
        assertRefused("[notifications]\nallow = [\"a\",\n\"\"]", "config.toml:3: allow: item 2 is an empty name")
        assertRefused("[notifications]\nquiet-hours = 22", "config.toml:2: quiet-hours must be a string \"HH:MM-HH:MM\" (such as \"22:00-07:00\") or \"\", not an integer")
        assertRefused("[voices]\nen = 1", "config.toml:2: the voice for en must be a string such as \"en-gb\", not an integer")
        assertRefused("[books]\nnotes = false",
                      "config.toml:2: notes must be \"after-paragraph\", \"end-of-chapter\" or \"skip\", not a boolean")
        assertRefused("[books]\nimages = 1", "config.toml:2: images must be \"read\" or \"skip\", not an integer")
    }

    func testOutOfRange() {
        assertRefused("[speech]\nrate = 2.6", "config.toml:2: rate must be from 0.5 to 2.5, not 2.6")
        assertRefused("[speech]\nrate = 0.4", "config.toml:2: rate must be from 0.5 to 2.5, not 0.4")
        assertRefused("[speech]\nrate = 0", "config.toml:2: rate must be from 0.5 to 2.5, not 0")
        assertRefused("[speech]\npitch = -0.1", "config.toml:2: pitch must be from 0 to 2, not -0.1")
        assertRefused("[speech]\nvolume = 1.01", "config.toml:2: volume must be from 0 to 1, not 1.01")
        assertRefused("[speech]\nvolume = nan", "config.toml:2: volume must be from 0 to 1, not nan")
        assertRefused("[speech]\nvolume = inf", "config.toml:2: volume must be from 0 to 1, not inf")
        assertRefused("[speech]\nvolume = -inf", "config.toml:2: volume must be from 0 to 1, not -inf")
        assertRefused("[audio]\nduck-level = 30", "config.toml:2: duck-level must be from 0 to 1, not 30")
        assertRefused("[audio]\nduck-ramp-ms = 501", "config.toml:2: duck-ramp-ms must be from 0 to 500, not 501")
        assertRefused("[audio]\nduck-ramp-ms = -1", "config.toml:2: duck-ramp-ms must be from 0 to 500, not -1")
        assertRefused("[audio]\nvolume-floor = 1.5", "config.toml:2: volume-floor must be from 0 to 1, not 1.5")
        assertRefused("[audio]\nauto-resume-timeout-minutes = 1441",
                      "config.toml:2: auto-resume-timeout-minutes must be from 0 to 1440, not 1441")
        assertRefused("[audio]\nauto-resume-timeout-minutes = 9223372036854775807",
                      "config.toml:2: auto-resume-timeout-minutes must be from 0 to 1440, not 9223372036854775807")
    }

    func testBookChoicesAreSpelledExactly() {
        assertRefused("[books]\n\nnotes = \"footnotes\"",
                      "config.toml:3: notes must be \"after-paragraph\", \"end-of-chapter\" or \"skip\", not \"footnotes\"")
        assertRefused("[books]\nnotes = \"After-Paragraph\"",
                      "config.toml:2: notes must be \"after-paragraph\", \"end-of-chapter\" or \"skip\", not \"After-Paragraph\"")
        assertRefused("[books]\nimages = \"yes\"", "config.toml:2: images must be \"read\" or \"skip\", not \"yes\"")
    }

    func testQuietHoursFormat() {
        assertRefused("[notifications]\nquiet-hours = \"22-7\"",
                      "config.toml:2: quiet-hours must be \"HH:MM-HH:MM\" on a 24-hour clock (such as \"22:00-07:00\") or \"\", not \"22-7\"")
        assertRefused("[notifications]\nquiet-hours = \"24:00-07:00\"",
                      "config.toml:2: quiet-hours must be \"HH:MM-HH:MM\" on a 24-hour clock (such as \"22:00-07:00\") or \"\", not \"24:00-07:00\"")
        assertRefused("[notifications]\nquiet-hours = \"08:00-08:00\"",
                      "config.toml:2: quiet-hours \"08:00-08:00\" starts when it ends; write \"\" for no quiet hours or \"00:00-23:59\" for almost all day")
        assertRefused("[notifications]\nquiet-hours = 22:00-07:00",
                      "config.toml:2: invalid value 22:00-07:00 (dates and times are not supported; strings need quotes, e.g. \"22:00-07:00\")")
    }

    func testVoices() {
        assertRefused("[voices]\n\"zh CN\" = \"cmn\"",
                      "config.toml:2: \"zh CN\" in [voices] is not a language tag (BCP 47, such as en, en-GB or \"zh-CN\")")
        assertRefused("[voices]\ne = \"en\"", "config.toml:2: e in [voices] is not a language tag (BCP 47, such as en, en-GB or \"zh-CN\")")
        assertRefused("[voices]\n\"\" = \"en\"", "config.toml:2: \"\" in [voices] is not a language tag (BCP 47, such as en, en-GB or \"zh-CN\")")
        assertRefused("[voices]\nen- = \"en\"", "config.toml:2: en- in [voices] is not a language tag (BCP 47, such as en, en-GB or \"zh-CN\")")
        assertRefused("[voices]\n1en = \"en\"", "config.toml:2: 1en in [voices] is not a language tag (BCP 47, such as en, en-GB or \"zh-CN\")")
        assertRefused("[voices]\nen-toolongsubtag = \"en\"",
                      "config.toml:2: en-toolongsubtag in [voices] is not a language tag (BCP 47, such as en, en-GB or \"zh-CN\")")
        assertRefused("[voices]\nen = \"\"", "config.toml:2: the voice for en is empty")
        assertRefused("[voices]\nen = \"en gb\"",
                      "config.toml:2: the voice for en must not contain spaces: \"en gb\" (espeak-ng voice names look like \"en-gb\")")
        XCTAssertEqual(parse("[voices]\nsr-Latn-RS = \"sr\"\nen-GB-x-rp = \"gmw/en-GB-x-rp\"")?.voices,
                       ["sr-Latn-RS": "sr", "en-GB-x-rp": "gmw/en-GB-x-rp"])
    }

    func testStringSyntax() {
        assertRefused("[notifications]\nallow = [\"Signal]\n", "config.toml:2: unterminated string (a closing \" is missing)")
        assertRefused("[notifications]\nallow = ['Signal]\n", "config.toml:2: unterminated string (a closing ' is missing)")
        assertRefused("[voices]\nen = \"en-gb", "config.toml:2: unterminated string (a closing \" is missing)")
        assertRefused("[voices]\nen = \"en\\", "config.toml:2: unterminated string (a closing \" is missing)")
        assertRefused(#"[voices]\#nen = "C:\path""#,
                      #"config.toml:2: invalid escape "\p" in a string (use \\ for a backslash, or a '...' literal string)"#)
        assertRefused(#"[voices]\#nen = "\u12""#, "config.toml:2: \\u must be followed by 4 hexadecimal digits")
        assertRefused(#"[voices]\#nen = "\U1234""#, "config.toml:2: \\U must be followed by 8 hexadecimal digits")
        assertRefused(#"[voices]\#nen = "\UD800DC00""#, "config.toml:2: \\UD800DC00 is not a Unicode scalar value")
        assertRefused(#"[voices]\#nen = "\uD800""#, "config.toml:2: \\uD800 is not a Unicode scalar value")
        assertRefused("[voices]\nen = \"a\u{07}b\"", "config.toml:2: control character U+0007 in a string; write it as an escape")
        assertRefused("[voices]\nen = 'a\u{00}b'", "config.toml:2: control character U+0000 (NUL) in the file")
        assertRefused("[voices]\nen = \"\"\"en\"\"\"", "config.toml:2: multi-line strings (\"\"\") are not supported")
        assertRefused("[voices]\nen = '''en'''", "config.toml:2: multi-line strings (''') are not supported")
        assertRefused("[voices]\n\"\"\"en\"\"\" = 'en'", "config.toml:2: a key cannot be a multi-line string")
    }

    func testValueSyntax() {
        assertRefused("[speech]\nrate =", "config.toml:2: missing value after rate =")
        assertRefused("[speech]\nrate = # fast\n", "config.toml:2: missing value after rate =")
        assertRefused("[speech]\nrate\n", "config.toml:2: expected \"=\" and a value after the key rate")
        assertRefused("[speech]\nrate 1.5\n", "config.toml:2: expected \"=\" after the key rate, found \"1\"")
        assertRefused("[speech]\nrate: 1.5\n", "config.toml:2: expected \"=\" after the key rate, found \":\"")
        assertRefused("[speech]\n= 1.5\n", "config.toml:2: missing key before \"=\"")
        assertRefused("[speech]\nrate = fast", "config.toml:2: invalid value fast (strings need quotes, e.g. \"fast\")")
        assertRefused("[speech]\nrate = True", "config.toml:2: invalid value True (strings need quotes, e.g. \"True\")")
        assertRefused("[speech]\nrate = 1.5 1.6", "config.toml:2: unexpected \"1\" after the value; one key = value per line, comments start with #")
        assertRefused("[speech]\nrate = 1.5, pitch = 1", "config.toml:2: unexpected \",\" after the value; one key = value per line, comments start with #")
        assertRefused("[speech]\nrate = ,", "config.toml:2: unexpected \",\"; expected a value")
        assertRefused("[speech]\nrate = 1.", "config.toml:2: invalid number 1.")
        assertRefused("[speech]\nrate = .5", "config.toml:2: invalid number .5 (write 0.5)")
        assertRefused("[speech]\nrate = 1e", "config.toml:2: invalid number 1e")
        assertRefused("[speech]\nrate = 1__0", "config.toml:2: invalid number 1__0 (underscores may only follow digits)")
        assertRefused("[speech]\nrate = 1_", "config.toml:2: unexpected \"_\" after the value; one key = value per line, comments start with #")
        assertRefused("[speech]\nrate = 01", "config.toml:2: invalid number 01 (leading zeros are not allowed)")
        assertRefused("[speech]\nrate = 0x1", "config.toml:2: invalid number 0x1 (only decimal numbers are supported)")
        assertRefused("[speech]\nrate = 1e999", "config.toml:2: number 1e999 is too large")
        assertRefused("[audio]\nduck-ramp-ms = 99999999999999999999", "config.toml:2: integer 99999999999999999999 is too large")
        assertRefused("[speech]\nrate = 1979-05-27", "config.toml:2: invalid value 1979-05-27 (dates and times are not supported; strings need quotes, e.g. \"1979-05-27\")")
        assertRefused("[speech]\nrate = {x = 1}", "config.toml:2: inline tables ({...}) are not supported")
        assertRefused("[speech]\nrate.value = 1", "config.toml:2: dotted keys (rate.…) are not supported; write a [section] line, then plain keys")
        assertRefused("speech.rate = 1", "config.toml:1: dotted keys (speech.…) are not supported; write a [section] line, then plain keys")
        assertRefused("[speech]\nrate\u{00A0}= 1", "config.toml:2: expected \"=\" after the key rate, found U+00A0")
    }

    func testArraySyntax() {
        assertRefused("[notifications]\nallow = [\"a\" \"b\"]", "config.toml:2: expected \",\" or \"]\" in the array, found '\"'")
        assertRefused("[notifications]\nallow = [\"a\",,\"b\"]", "config.toml:2: two commas in a row in an array")
        assertRefused("[notifications]\nallow = [,]", "config.toml:2: unexpected \",\" at the start of an array")
        assertRefused("[notifications]\nallow = [\n\"a\",\n\"b\"\n\n", "config.toml:5: unterminated array (a closing ] is missing)")
        assertRefused("[notifications]\nallow = [\"a\",", "config.toml:2: unterminated array (a closing ] is missing)")
        assertRefused("[notifications]\nallow = [\"a\"] x", "config.toml:2: unexpected \"x\" after the value; one key = value per line, comments start with #")
    }

    func testHeaderSyntax() {
        assertRefused("[speech", "config.toml:1: expected \"]\" after [speech")
        assertRefused("[speech x]", "config.toml:1: expected \"]\" after [speech, found \"x\"")
        assertRefused("[]", "config.toml:1: expected a table name between \"[\" and \"]\"")
        assertRefused("[\n", "config.toml:1: expected a table name after \"[\"")
        assertRefused("[speech] rate = 1", "config.toml:1: unexpected \"r\" after [speech]; one key = value per line, comments start with #")
        assertRefused("[[speech]]", "config.toml:1: arrays of tables ([[...]]) are not supported")
        assertRefused("[speech.extra]", "config.toml:1: nested tables such as [speech.…] are not supported")
    }

    func testCommentsMayNotHoldControlCharacters() {
        assertRefused("[speech] # a\u{01}b", "config.toml:1: control character U+0001 in a comment")
        XCTAssertNotNil(parse("[speech] # tabs\tare fine, and so is ünïcödé"))
    }

    /// toml++ 3.4 aborts on a header whose name starts with no key character; it must never see one.
    func testHeadersThatWouldCrashTheParserAreRefused() {
        for text in ["[\n", "[ \t\n", "[[\n", "[ #", "[=]", "[\u{E9}]", "[speech]\nrate = 1\n[ é]"] {
            XCTAssertThrowsError(try Configuration.parse(text, file: "c.toml"), text.debugDescription)
        }
        assertRefused("[speech]\nrate = 1\n[ é]", "config.toml:3: expected a table name after \"[\"")
    }

    /// TOMLKit hands toml++ a C string and returns strings as C strings: a NUL must not cut either short.
    func testNULIsRefused() {
        assertRefused("[speech]\nrate = 1\n\u{00}rate = 9", "config.toml:3: control character U+0000 (NUL) in the file")
        assertRefused(#"[voices]\#nen = "en\u0000gb""#, "config.toml:2: control character U+0000 in a string")
        XCTAssertEqual(parse(#"[voices]\#nen = "en\\u0000gb""#)?.voices, ["en": #"en\u0000gb"#])
    }

    /// Lines come from a scan of the text that skips strings and comments as TOML does.
    func testLinesAreNotFooledByStringsAndComments() {
        let text = """
            [notifications] # a "quoted" comment with [brackets] and key = value
            allow = ["a = [b]", 'c # d', "e\\"]", # trailing ]
              "f\\n[speech]",
              "",
            ]
            """
        assertRefused(text, "config.toml:4: allow: item 5 is an empty name")
        assertRefused("[voices]\n\"\\u0065n\" = \"en-gb\"\nen = \"en-us\"", "config.toml:3: en is set twice in [voices] (first at line 2)")
        XCTAssertEqual(parse("[voices]\n\"\\u0065n\" = \"en-gb\"")?.voices, ["en": "en-gb"])
        assertRefused("[notifications]\nallow = [[\n\"a\"],\n 1]", "config.toml:2: allow must hold application names (strings); item 1 is an array")
        assertRefused("[notifications]\nallow = [[\n\"a\"],\n 1]\nenabled = 1", "config.toml:2: allow must hold application names (strings); item 1 is an array")
    }

    func testTOMLFormsLectorDoesNotTake() {
        assertRefused("[speech]\nrate = 1979-05-27 07:32:00", "config.toml:2: invalid value 1979-05-27 07:32:00 (dates and times are not supported; strings need quotes, e.g. \"1979-05-27 07:32:00\")")
        assertRefused("[speech]\nrate = 0o7", "config.toml:2: invalid number 0o7 (only decimal numbers are supported)")
        assertRefused("[notifications]\nallow = [\"a\", \"\"\"b\"\"\"]", "config.toml:2: multi-line strings (\"\"\") are not supported")
        assertRefused("[speech]\nrate = 1\n[[voices]]", "config.toml:3: arrays of tables ([[...]]) are not supported")
    }

    func testFirstErrorWins() {
        assertRefused("[speech]\nrate = 9\npitch = 9\n", "config.toml:2: rate must be from 0.5 to 2.5, not 9")
    }

    func testFileNameIsReportedAsGiven() {
        XCTAssertThrowsError(try Configuration.parse("[x]", file: "/etc/xdg/lector/config.toml")) {
            XCTAssertEqual("\($0)", "/etc/xdg/lector/config.toml:1: unknown section [x] (known sections: [speech], [voices], [audio], [notifications], [narration], [books])")
        }
    }
}

/// `[narration]`: media keys and rewinding on resume (issue 13).
final class NarrationSectionTests: XCTestCase {
    func testDefaultsAndEveryKey() throws {
        let defaults = Configuration().narration
        XCTAssertEqual(defaults.nextPrevious, .chapter)
        XCTAssertEqual(defaults.skipForwardSeconds, 30)
        XCTAssertEqual(defaults.skipBackSeconds, 15)
        XCTAssertEqual(defaults.rewindAfterPauseSeconds, 300)
        XCTAssertEqual(defaults.rewindSeconds, 10)
        let configuration = try Configuration.parse("""
            [narration]
            next-previous = "skip"
            skip-forward-seconds = 45
            skip-back-seconds = 10
            rewind-after-pause-seconds = 1
            rewind-seconds = 0
            """, file: "config.toml")
        XCTAssertEqual(configuration.narration.nextPrevious, .skip)
        XCTAssertEqual(configuration.narration.skipForwardSeconds, 45)
        XCTAssertEqual(configuration.narration.skipBackSeconds, 10)
        XCTAssertEqual(configuration.narration.rewindAfterPauseSeconds, 1)
        XCTAssertEqual(configuration.narration.rewindSeconds, 0)
    }

    func testMistakesNameTheLineAndWhatIsAllowed() {
        assertRefused("[narration]\nnext-previous = \"track\"",
                      "config.toml:2: next-previous must be \"chapter\" or \"skip\", not \"track\"")
        assertRefused("[narration]\nnext-previous = true", "config.toml:2: next-previous must be \"chapter\" or \"skip\", not a boolean")
        assertRefused("[narration]\n\nskip-forward-seconds = 0", "config.toml:3: skip-forward-seconds must be from 1 to 3600, not 0")
        assertRefused("[narration]\nskip-back-seconds = 3601", "config.toml:2: skip-back-seconds must be from 1 to 3600, not 3601")
        assertRefused("[narration]\nskip-back-seconds = 1.5",
                      "config.toml:2: skip-back-seconds must be a whole number from 1 to 3600, not a float (1.5)")
        assertRefused("[narration]\nrewind-after-pause-seconds = 0",
                      "config.toml:2: rewind-after-pause-seconds must be from 1 to 86400, not 0")
        assertRefused("[narration]\nrewind-seconds = -1", "config.toml:2: rewind-seconds must be from 0 to 600, not -1")
        assertRefused("[narration]\nrewind = 10", "config.toml:2: unknown key rewind in [narration] (known keys: next-previous, "
                      + "skip-forward-seconds, skip-back-seconds, rewind-after-pause-seconds, rewind-seconds)")
    }
}
