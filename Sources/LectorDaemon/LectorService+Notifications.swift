import Foundation
import Glibc
import LectorBus
import LectorCore
import LectorState

/// Desktop notifications read aloud (opt-in): a monitor connection overhears
/// `org.freedesktop.Notifications.Notify` calls; allow-listed apps are announced as
/// "app: summary" at `notification` priority (so they never interrupt anything).
extension LectorService {
    static let notifyRule = "type='method_call',interface='org.freedesktop.Notifications',member='Notify'"

    /// `lector notifications on|off` is remembered here and wins over config's `enabled`.
    var notificationChoiceFile: URL {
        DuckJournalStore.defaultDirectory().appendingPathComponent("read-notifications")
    }

    var readsNotifications: Bool {
        notificationChoice ?? configuration.notifications.enabled
    }

    /// The listener's choice from `lector notifications on|off`, if any.
    var notificationChoice: Bool? {
        guard let text = try? String(contentsOf: notificationChoiceFile, encoding: .utf8) else { return nil }
        switch text.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "on": return true
        case "off": return false
        default: return nil
        }
    }

    func setReadNotifications(_ on: Bool) {
        let before = readsNotifications
        do {
            try FileManager.default.createDirectory(at: notificationChoiceFile.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try (on ? "on\n" : "off\n").write(to: notificationChoiceFile, atomically: true, encoding: .utf8)
        } catch {
            Journal.log(.warning, "could not remember the notification choice: \(error)")
        }
        if readsNotifications != before {
            bus.emitPropertiesChanged(path: BusNames.objectPath, interface: BusNames.interface, names: ["ReadNotifications"])
        }
        updateNotificationMonitor()
    }

    /// Starts or stops overhearing notifications to match `readsNotifications`.
    func updateNotificationMonitor() {
        guard readsNotifications != (notificationMonitor != nil) else { return }
        guard readsNotifications else {
            notificationMonitor = nil
            Journal.log(.info, "no longer reading notifications")
            return
        }
        do {
            let monitor = try BusMonitor(loop: loop, rules: [Self.notifyRule]) { [weak self] message in
                guard let self else { return }
                self.overheard(message)
            }
            monitor.onReady = { failure in
                if let failure {
                    Journal.log(.warning, "cannot overhear notifications: \(failure)", fields: ["LECTOR_ERROR": "Failed"])
                } else {
                    Journal.log(.info, "reading notifications of: \(self.notificationRules.allow.joined(separator: ", "))")
                }
            }
            notificationMonitor = monitor
        } catch {
            Journal.log(.warning, "cannot overhear notifications: \(error)", fields: ["LECTOR_ERROR": "Failed"])
        }
    }

    /// `Notify(s app_name, u replaces_id, s app_icon, s summary, s body, as actions, a{sv} hints, i timeout)`
    private func overheard(_ message: MessageReader) {
        guard readsNotifications,
              let app = try? message.readString(), (try? message.readUInt32()) != nil, (try? message.readString()) != nil,
              let summary = try? message.readString(), let body = try? message.readString() else { return }
        var now = time(nil)
        var local = tm()
        localtime_r(&now, &local)
        guard let text = notificationRules.announcement(app: app, summary: summary, body: body,
                                                                  minuteOfDay: Int(local.tm_hour) * 60 + Int(local.tm_min)),
              let id = announcer.announceNotification(text) else { return }
        Journal.log(.debug, "reading a notification from \(app) as speech \(id)", fields: ["LECTOR_SPEECH_ID": String(id)])
    }
}
