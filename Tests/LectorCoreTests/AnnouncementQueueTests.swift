import LectorCore
import XCTest

final class AnnouncementQueueTests: XCTestCase {
    private var queue = AnnouncementQueue<String>(capacity: 8)

    override func setUp() {
        queue = AnnouncementQueue<String>(capacity: 8)
    }

    @discardableResult
    private func offer(_ id: UInt64, _ priority: SpeechPriority, from sender: String = ":1.1",
                       speaking: SpeechPriority? = nil) throws -> QueueAdmission {
        try queue.enqueue("job \(id)", id: id, priority: priority, sender: sender, speaking: speaking)
    }

    private func drain() -> [UInt64] {
        var spoken: [UInt64] = []
        while let next = queue.next() { spoken.append(next.id) }
        return spoken
    }

    // MARK: important

    func testImportantIsSpokenFirstAndFIFOAmongItself() throws {
        try offer(1, .message, speaking: .message)
        try offer(2, .important, speaking: .important)
        try offer(3, .text, speaking: .important)
        try offer(4, .important, speaking: .important)
        XCTAssertEqual(queue.ids, [2, 4, 1, 3])
        XCTAssertEqual(drain(), [2, 4, 1, 3])
    }

    func testImportantInterruptsAnythingButImportant() throws {
        for speaking in [SpeechPriority.message, .text, .notification, .progress] {
            setUp()
            XCTAssertEqual(try offer(1, .important, speaking: speaking).interruptCurrent, .cancelled, "\(speaking)")
        }
        setUp()
        XCTAssertNil(try offer(1, .important, speaking: .important).interruptCurrent)
    }

    func testImportantCancelsWaitingNotificationButKeepsMessagesAndText() throws {
        try offer(1, .notification)
        let admission = try offer(2, .important)
        XCTAssertEqual(admission.removed, [QueueRemoval(id: 1, reason: .cancelled)])

        try offer(3, .message, speaking: .important)
        try offer(4, .text, speaking: .important)
        XCTAssertEqual(try offer(5, .important, speaking: .important).removed, [])
        XCTAssertEqual(queue.ids, [2, 5, 3, 4])
    }

    // MARK: message

    func testMessagesAreFIFOAndDoNotInterruptEachOther() throws {
        XCTAssertNil(try offer(1, .message, speaking: .message).interruptCurrent)
        XCTAssertNil(try offer(2, .message, speaking: .message).interruptCurrent)
        XCTAssertEqual(drain(), [1, 2])
    }

    func testMessageCancelsWaitingTextAndNotification() throws {
        try offer(1, .notification)
        XCTAssertEqual(try offer(2, .message).removed, [QueueRemoval(id: 1, reason: .cancelled)])
        try offer(3, .text, speaking: .message)
        XCTAssertEqual(try offer(4, .message, speaking: .message).removed, [QueueRemoval(id: 3, reason: .cancelled)])
        XCTAssertEqual(queue.ids, [2, 4])
    }

    func testMessageInterruptsSpeakingTextNotificationAndProgressOnly() throws {
        for speaking in [SpeechPriority.text, .notification, .progress] {
            setUp()
            XCTAssertEqual(try offer(1, .message, speaking: speaking).interruptCurrent, .cancelled, "\(speaking)")
        }
        for speaking in [SpeechPriority.important, .message] {
            setUp()
            XCTAssertNil(try offer(1, .message, speaking: speaking).interruptCurrent, "\(speaking)")
        }
    }

    // MARK: text

    func testOnlyTheLatestTextIsKept() throws {
        try offer(1, .text, speaking: .message)
        let second = try offer(2, .text, speaking: .message)
        XCTAssertEqual(second.removed, [QueueRemoval(id: 1, reason: .superseded)])
        XCTAssertNil(second.interruptCurrent)
        XCTAssertEqual(queue.ids, [2])
    }

    func testTextSupersedesTheSpeakingTextAndCancelsNotificationAndProgress() throws {
        XCTAssertEqual(try offer(1, .text, speaking: .text).interruptCurrent, .superseded)
        setUp()
        XCTAssertEqual(try offer(1, .text, speaking: .notification).interruptCurrent, .cancelled)
        setUp()
        XCTAssertEqual(try offer(1, .text, speaking: .progress).interruptCurrent, .cancelled)
        setUp()
        XCTAssertNil(try offer(1, .text, speaking: .message).interruptCurrent)
        try offer(2, .notification, speaking: nil) // dropped: text 1 waits
        XCTAssertEqual(queue.ids, [1])
    }

    func testTextWaitsBehindImportantAndMessage() throws {
        try offer(1, .text, speaking: .message)
        try offer(2, .message, speaking: .message) // cancels text 1
        try offer(3, .text, speaking: .message)
        try offer(4, .important, speaking: .message)
        XCTAssertEqual(drain(), [4, 2, 3])
    }

    // MARK: notification

    func testNotificationIsDroppedWhenAnythingElseSpeaksOrWaits() throws {
        for speaking in [SpeechPriority.important, .message, .text, .progress] {
            setUp()
            let admission = try offer(1, .notification, speaking: speaking)
            XCTAssertFalse(admission.accepted, "\(speaking)")
            XCTAssertTrue(queue.isEmpty)
        }
        for waiting in [SpeechPriority.important, .message, .text, .progress] {
            setUp()
            try offer(1, waiting)
            XCTAssertFalse(try offer(2, .notification).accepted, "\(waiting)")
            XCTAssertEqual(queue.ids, [1])
        }
    }

    func testNewNotificationSupersedesWaitingAndSpeakingOnes() throws {
        XCTAssertTrue(try offer(1, .notification).accepted)
        let second = try offer(2, .notification, speaking: .notification)
        XCTAssertTrue(second.accepted)
        XCTAssertEqual(second.removed, [QueueRemoval(id: 1, reason: .superseded)])
        XCTAssertEqual(second.interruptCurrent, .superseded)
        XCTAssertEqual(queue.ids, [2])
    }

    func testNotificationIsCancelledByEveryOtherPriority() throws {
        for other in [SpeechPriority.important, .message, .text, .progress] {
            setUp()
            try offer(1, .notification)
            XCTAssertEqual(try offer(2, other).removed, [QueueRemoval(id: 1, reason: .cancelled)], "\(other)")
            XCTAssertEqual(try offer(3, other, speaking: .notification).interruptCurrent, .cancelled, "\(other)")
        }
    }

    // MARK: progress

    func testProgressDoesNotInterruptProgressAndKeepsOnlyTheSendersLatest() throws {
        let first = try offer(1, .progress, speaking: .progress)
        XCTAssertNil(first.interruptCurrent)
        let second = try offer(2, .progress, speaking: .progress)
        XCTAssertEqual(second.removed, [QueueRemoval(id: 1, reason: .superseded)])
        XCTAssertNil(second.interruptCurrent)
        // Another sender's series is its own.
        XCTAssertEqual(try offer(3, .progress, from: ":1.2", speaking: .progress).removed, [])
        XCTAssertEqual(queue.ids, [2, 3])
    }

    func testLastProgressOfASeriesSurvivesMoreImportantArrivalsAsAMessage() throws {
        try offer(1, .progress, speaking: .message)   // "Completed 90%"
        try offer(2, .progress, speaking: .message)   // "Completed 100%" supersedes 1
        let message = try offer(3, .message, speaking: .message)
        XCTAssertEqual(message.removed, [])           // promoted, not cancelled
        XCTAssertEqual(queue.waiting.map(\.priority), [.message, .message])
        try offer(4, .text, speaking: .message)
        try offer(5, .important, speaking: .message)
        // Promoted progress keeps its arrival place among messages, like SSIP's sorted insert.
        let first = queue.next()
        XCTAssertEqual(first?.id, 5)
        let second = queue.next()
        XCTAssertEqual(second?.id, 2)
        XCTAssertEqual(second?.priority, .message)
        XCTAssertEqual(drain(), [3, 4])
    }

    func testPromotedProgressIsStillSupersededByItsSeries() throws {
        try offer(1, .progress, speaking: .message)
        try offer(2, .message, speaking: .message)     // promotes 1
        let next = try offer(3, .progress, speaking: .message)
        XCTAssertEqual(next.removed, [QueueRemoval(id: 1, reason: .superseded)])
        XCTAssertEqual(queue.waiting.map(\.priority), [.message, .progress])
    }

    func testProgressIsSpokenWhenTheQueueDrains() throws {
        try offer(1, .progress, speaking: .message)
        try offer(2, .message, from: ":1.2", speaking: .message)
        try offer(3, .text, from: ":1.3", speaking: .message)
        XCTAssertEqual(drain(), [1, 2, 3])
    }

    // MARK: bounds

    func testFullQueueRefusesAllButImportantWithoutChangingAnything() throws {
        queue = AnnouncementQueue(capacity: 3)
        try offer(1, .message, from: "a")
        try offer(2, .message, from: "b")
        try offer(3, .message, from: "c")
        XCTAssertThrowsError(try offer(4, .message, from: "d")) { error in
            XCTAssertEqual(error as? AnnouncementRefusal, .queueFull(capacity: 3))
        }
        XCTAssertThrowsError(try offer(5, .text, from: "d"))
        XCTAssertEqual(queue.ids, [1, 2, 3])
    }

    func testImportantEvictsTheOldestLeastImportantWaiting() throws {
        queue = AnnouncementQueue(capacity: 4)
        try offer(1, .message, from: "a", speaking: .message)
        try offer(2, .progress, from: "a", speaking: .message)
        try offer(3, .text, from: "a", speaking: .message)
        try offer(4, .message, from: "a", speaking: .message)  // cancels text 3
        try offer(5, .progress, from: "b", speaking: .message)
        // Full: 1, 2 (promoted), 4, 5 (progress). Least important first: 5.
        let admission = try offer(6, .important, from: "z", speaking: .message)
        XCTAssertEqual(admission.removed, [QueueRemoval(id: 5, reason: .dropped)])
        XCTAssertEqual(queue.ids, [6, 1, 2, 4])
        // Now only messages: the oldest goes.
        XCTAssertEqual(try offer(7, .important, from: "z").removed, [QueueRemoval(id: 1, reason: .dropped)])
        XCTAssertEqual(queue.ids, [6, 7, 2, 4])
    }

    func testImportantEvictsProgressBeforeText() throws {
        queue = AnnouncementQueue(capacity: 2)
        try offer(1, .text, from: "a", speaking: .message)
        try offer(2, .progress, from: "b", speaking: .message)
        let admission = try offer(3, .important, from: "c", speaking: .message)
        XCTAssertEqual(admission.removed, [QueueRemoval(id: 2, reason: .dropped)])
        XCTAssertEqual(queue.ids, [3, 1])
    }

    func testQueueFullOfImportantRefusesImportant() throws {
        queue = AnnouncementQueue(capacity: 2)
        try offer(1, .important, from: "a")
        try offer(2, .important, from: "b")
        XCTAssertThrowsError(try offer(3, .important, from: "c")) { error in
            XCTAssertEqual(error as? AnnouncementRefusal, .queueFull(capacity: 2))
        }
    }

    func testPerSenderLimitLeavesRoomForOthers() throws {
        queue = AnnouncementQueue(capacity: 10, maxWaitingPerSender: 2)
        try offer(1, .message, from: "flood")
        try offer(2, .message, from: "flood")
        XCTAssertThrowsError(try offer(3, .important, from: "flood")) { error in
            XCTAssertEqual(error as? AnnouncementRefusal, .senderQueueFull(sender: "flood", limit: 2))
            XCTAssertEqual((error as? AnnouncementRefusal)?.errorName, "QueueFull")
        }
        try offer(4, .important, from: "calm")
        XCTAssertEqual(queue.waitingCount(sender: "flood"), 2)
        XCTAssertEqual(queue.waitingCount(sender: "calm"), 1)
        XCTAssertEqual(queue.ids, [4, 1, 2])
    }

    func testReplacingOwnTextFitsUnderThePerSenderLimit() throws {
        queue = AnnouncementQueue(capacity: 10, maxWaitingPerSender: 1)
        try offer(1, .text, from: "editor", speaking: .message)
        XCTAssertEqual(try offer(2, .text, from: "editor", speaking: .message).removed,
                       [QueueRemoval(id: 1, reason: .superseded)])
        XCTAssertEqual(queue.waitingCount(sender: "editor"), 1)
    }

    // MARK: next, remove

    func testNextWhereOnlyLetsAllowedPrioritiesThrough() throws {
        try offer(1, .message)
        try offer(2, .important)
        try offer(3, .important)
        let onlyImportant: (SpeechPriority) -> Bool = { $0 == .important }
        XCTAssertEqual(queue.next(where: onlyImportant)?.id, 2)
        XCTAssertEqual(queue.next(where: onlyImportant)?.id, 3)
        XCTAssertNil(queue.next(where: onlyImportant))
        XCTAssertEqual(queue.count, 1)
    }

    func testRemoveAndRemoveAllKeepCountsRight() throws {
        try offer(1, .message, from: "a")
        try offer(2, .important, from: "b")
        try offer(3, .message, from: "a")
        XCTAssertEqual(queue.remove(id: 3), "job 3")
        XCTAssertNil(queue.remove(id: 3))
        XCTAssertEqual(queue.waitingCount(sender: "a"), 1)
        XCTAssertEqual(queue.waiting.map(\.id), [2, 1])
        XCTAssertEqual(queue.waiting.map(\.sender), ["b", "a"])
        XCTAssertEqual(queue.removeAll(), [2, 1])
        XCTAssertTrue(queue.isEmpty)
        XCTAssertEqual(queue.waitingCount(sender: "a"), 0)
    }
}
