import LectorCore
import XCTest

final class WordRangeRepairTests: XCTestCase {
    private func words(_ text: String, _ reported: [(Int, Int)]) -> [String] {
        var repair = WordRangeRepair(text: text)
        let scalars = Array(text.unicodeScalars)
        return reported.compactMap { repair.repair(start: $0.0, length: $0.1) }.map { range in
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[range])
            return String(view)
        }
    }

    func testCorrectReportsPassUnchanged() {
        XCTAssertEqual(words("The quick brown fox", [(0, 3), (4, 5), (10, 5), (16, 3)]), ["The", "quick", "brown", "fox"])
        XCTAssertEqual(words("Grüße aus Köln, naïve café", [(0, 5), (6, 3), (10, 4), (16, 5), (22, 4)]),
                       ["Grüße", "aus", "Köln", "naïve", "café"])
        XCTAssertEqual(words("Pay 35.20 now, don't wait", [(0, 3), (4, 5), (10, 3), (15, 5), (21, 4)]),
                       ["Pay", "35.20", "now", "don't", "wait"])
        XCTAssertEqual(words("你好世界", [(0, 1), (1, 1), (2, 1), (3, 1)]), ["你", "好", "世", "界"])
    }

    func testEspeaksMisplacedWordsLandOnRealWords() {
        // Seen with espeak-ng 1.51 on The Waste Land.
        XCTAssertEqual(words("From which a golden Cupidon", [(0, 4), (1, 4), (11, 1), (13, 6)]),
                       ["From", "a", "golden"], "a report inside the previous word is dropped")
        XCTAssertEqual(words("II. A GAME OF CHESS", [(0, 2), (1, 2), (4, 1), (6, 4)]), ["II", "A", "GAME"],
                       "and later words stay where they are")
    }

    func testAReportInsideTheNextWordMovesBackToItsStart() {
        XCTAssertEqual(words("hello wonderful world", [(0, 5), (8, 3)]), ["hello", "wonderful"])
    }

    func testNothingLeftIsDropped() {
        XCTAssertEqual(words("End.", [(0, 3), (2, 2), (3, 1)]), ["End"])
    }
}
