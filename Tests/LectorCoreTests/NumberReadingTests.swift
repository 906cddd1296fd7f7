import LectorCore
import XCTest

final class NumberReadingTests: XCTestCase {
    private func read(_ text: String, _ mode: NumberMode, _ language: String? = "en") -> String {
        NumberReading.apply(mode, to: text, language: language)
    }

    // MARK: number

    func testNumberModeLeavesEnglishUnchanged() {
        for text in ["1234", "35.20", "1,234.50", "Call 138-0013", "A320", "12:30"] {
            XCTAssertEqual(read(text, .number), text)
        }
        XCTAssertTrue(NumberReading.rewrite("No digits here", mode: .digits, language: "en").isIdentity)
    }

    func testNumberModeSaysTheChineseDecimalPoint() {
        // espeak-ng cmn/yue drop "." (35.20 is heard as 35 2 0); decimals are read digit by digit.
        XCTAssertEqual(read("收款35.20", .number, "zh-CN"), "收款35点2 0")
        XCTAssertEqual(read("3.14", .number, "yue"), "3点1 4")
        XCTAssertEqual(read("1234", .number, "cmn"), "1234")
        XCTAssertEqual(read("192.168.1.1", .number, "zh"), "192.168.1.1")
    }

    // MARK: digits

    func testDigitsSpellsRunsOfDigits() {
        XCTAssertEqual(read("PIN 1234", .digits), "PIN 1 2 3 4")
        XCTAssertEqual(read("Gate 7", .digits), "Gate 7")
        XCTAssertEqual(read("35.20", .digits), "3 5.2 0")
        XCTAssertEqual(read("1.5", .digits), "1.5")
        XCTAssertEqual(read("1,234", .digits), "1 2 3 4")
        XCTAssertEqual(read("35,20", .digits), "3 5,2 0")
        XCTAssertEqual(read("138-0013-8000", .digits), "1 3 8 - 0 0 1 3 - 8 0 0 0")
        XCTAssertEqual(read("at 12:30.", .digits), "at 1 2 : 3 0.")
        XCTAssertEqual(read("-42", .digits), "-4 2")
    }

    func testDigitsNeverTouchesWords() {
        for text in ["A320", "mp3", "5G", "1234th", "COVID19", "x2y"] {
            XCTAssertEqual(read(text, .digits), text)
        }
        XCTAssertEqual(read("flight A320, seat 12", .digits), "flight A320, seat 1 2")
    }

    func testDigitsInChinese() {
        XCTAssertEqual(read("验证码1234", .digits, "zh-CN"), "验证码1 2 3 4")
        XCTAssertEqual(read("第12号", .digits, "cmn"), "第1 2号")
        XCTAssertEqual(read("35.20元", .digits, "zh"), "3 5点2 0元")
        XCTAssertEqual(read("1.5", .digits, "zh"), "1点5")
    }

    func testDigitsInOtherLanguagesKeepTheSeparators() {
        XCTAssertEqual(read("35,20 €", .digits, "fr"), "3 5,2 0 €")
        XCTAssertEqual(read("Zimmer 204", .digits, "de"), "Zimmer 2 0 4")
    }

    // MARK: currency, English

    func testCurrencyInEnglish() {
        XCTAssertEqual(read("Paid €35.20", .currency), "Paid 35 euros and 20 cents")
        XCTAssertEqual(read("35.20 EUR", .currency), "35 euros and 20 cents")
        XCTAssertEqual(read("EUR 35.20", .currency), "35 euros and 20 cents")
        XCTAssertEqual(read("35.20€", .currency), "35 euros and 20 cents")
        XCTAssertEqual(read("$5", .currency), "5 dollars")
        XCTAssertEqual(read("$1.01", .currency), "1 dollar and 1 cent")
        XCTAssertEqual(read("$0.50", .currency), "50 cents")
        XCTAssertEqual(read("£3.5", .currency), "3 pounds and 50 pence")
        XCTAssertEqual(read("$1,234.00 due", .currency), "1234 dollars due")
        XCTAssertEqual(read("$0.125", .currency), "0.125 dollars")
        XCTAssertEqual(read("¥500", .currency), "500 yen")
        XCTAssertEqual(read("¥35.2", .currency), "35 yuan and 20 fen")
        XCTAssertEqual(read("35.20元", .currency), "35 yuan and 20 fen")
        XCTAssertEqual(read("RMB 100", .currency), "100 yuan")
    }

    func testCurrencyLeavesOtherNumbersAndWordsAlone() {
        XCTAssertEqual(read("35.20", .currency), "35.20")          // no currency to name
        XCTAssertEqual(read("EURO 5", .currency), "EURO 5")
        XCTAssertEqual(read("US$5", .currency), "US$5")
        XCTAssertEqual(read("$5k", .currency), "$5k")
        XCTAssertEqual(read("$192.168.1.1", .currency), "$192.168.1.1")
        XCTAssertEqual(read("room 12, 3 EURO", .currency), "room 12, 3 EURO")
        XCTAssertEqual(read("€5", .currency, "fr"), "€5")          // no wording for French
    }

    // MARK: currency, Chinese

    func testCurrencyInChinese() {
        XCTAssertEqual(read("支付宝到账35.20元", .currency, "zh-CN"), "支付宝到账35元2角")
        XCTAssertEqual(read("到账35.20", .currency, "zh-CN"), "到账35元2角")
        XCTAssertEqual(read("¥35.2", .currency, "zh"), "35元2角")
        XCTAssertEqual(read("￥500", .currency, "zh"), "500元")
        XCTAssertEqual(read("35.25元", .currency, "zh"), "35元2角5分")
        XCTAssertEqual(read("35.05元", .currency, "zh"), "35元零5分")
        XCTAssertEqual(read("0.50元", .currency, "zh"), "5角")
        XCTAssertEqual(read("0.05元", .currency, "zh"), "5分")
        XCTAssertEqual(read("0元", .currency, "zh"), "0元")
        XCTAssertEqual(read("35块", .currency, "zh"), "35元")
        XCTAssertEqual(read("1,234.50元", .currency, "zh"), "1234元5角")
        XCTAssertEqual(read("€35.20", .currency, "zh"), "35点2欧元")
        XCTAssertEqual(read("35.25美元", .currency, "yue"), "35点2 5美元")
        XCTAssertEqual(read("$5", .currency, "cmn"), "5美元")
        XCTAssertEqual(read("3.5", .currency, "zh"), "3点5")         // not money: a decimal
    }

    // MARK: offsets

    func testDigitsMapEachDigitBackToItself() {
        let rewrite = NumberReading.rewrite("PIN 1234.", mode: .digits, language: "en")
        XCTAssertEqual(rewrite.text, "PIN 1 2 3 4.")
        // Words before the number are untouched.
        XCTAssert(rewrite.originalRange(start: 0, length: 3) == (0, 3))
        // espeak's words "1", "2", "3", "4" at new offsets 4, 6, 8, 10.
        for (index, newOffset) in [4, 6, 8, 10].enumerated() {
            XCTAssert(rewrite.originalRange(start: newOffset, length: 1) == (4 + index, 1), "\(newOffset)")
        }
        XCTAssert(rewrite.originalRange(start: 4, length: 7) == (4, 4))
        XCTAssertEqual(rewrite.originalOffset(11), 8)   // the final "."
        XCTAssertEqual(rewrite.originalOffset(12), 9)   // the end
    }

    func testCurrencyWordsMapToTheWholeAmount() {
        let text = "Paid €35.20 today"
        let rewrite = NumberReading.rewrite(text, mode: .currency, language: "en")
        XCTAssertEqual(rewrite.text, "Paid 35 euros and 20 cents today")
        // "euros" (new 8..<13) lies inside the rewritten amount: the whole "€35.20" (5..<11).
        XCTAssert(rewrite.originalRange(start: 8, length: 5) == (5, 6))
        XCTAssert(rewrite.originalRange(start: 5, length: 21) == (5, 6))
        // "today" after it shifts back by the length difference.
        XCTAssert(rewrite.originalRange(start: 27, length: 5) == (12, 5))
    }

    func testChineseOffsetsCountUnicodeScalars() {
        let rewrite = NumberReading.rewrite("到账35.20元，谢谢", mode: .currency, language: "zh")
        XCTAssertEqual(rewrite.text, "到账35元2角，谢谢")
        XCTAssert(rewrite.originalRange(start: 0, length: 2) == (0, 2))
        XCTAssert(rewrite.originalRange(start: 2, length: 3) == (2, 6))
        XCTAssert(rewrite.originalRange(start: 8, length: 2) == (9, 2))
    }

    func testIdentityMapsOffsetsToThemselves() {
        let rewrite = TextRewrite(unchanged: "héllo wörld")
        XCTAssertEqual(rewrite.text, "héllo wörld")
        XCTAssert(rewrite.originalRange(start: 6, length: 5) == (6, 5))
        XCTAssertEqual(rewrite.originalOffset(3), 3)
    }

    func testModesHaveTheOptionNames() {
        XCTAssertEqual(NumberMode.allCases.map(\.rawValue), ["number", "digits", "currency"])
    }
}
