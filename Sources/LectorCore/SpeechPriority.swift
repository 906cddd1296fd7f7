/// How an announcement competes with others, named as speech-dispatcher (SSIP) names them so that
/// people who know `spd-say -P` are not surprised. Queue rules per priority live in the queue.
public enum SpeechPriority: String, Sendable, CaseIterable {
    case important, message, text, notification, progress
}
