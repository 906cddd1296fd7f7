extension Configuration.Notifications {
    /// What to say for a desktop notification, or nil when it is not to be read: `app: summary`
    /// (plus the body only with `read-body`), for allow-listed apps (`"*"` allows every app;
    /// names compare case-insensitively), never during quiet hours. Whether reading is on at
    /// all is the caller's (config `enabled`, or `lector notifications on|off`).
    ///
    /// ```swift
    /// var rules = Configuration.Notifications()
    /// rules.allow = ["Thunderbird"]
    /// rules.announcement(app: "thunderbird", summary: "New mail", body: "Hi", minuteOfDay: 600)   // "thunderbird: New mail"
    /// ```
    public func announcement(app: String, summary: String, body: String, minuteOfDay: Int) -> String? {
        let wanted = app.lowercased()
        guard allow.contains(where: { $0 == "*" || $0.lowercased() == wanted }) else { return nil }
        if let quietHours, quietHours.contains(minuteOfDay: minuteOfDay) { return nil }
        let title = summary.trimmingWhitespace
        let text = readBody ? [title, Self.plain(body).trimmingWhitespace].filter { !$0.isEmpty }.joined(separator: ". ") : title
        guard !text.isEmpty else { return nil }
        return app.isEmpty ? text : "\(app): \(text)"
    }

    /// Notification bodies may carry simple markup (`<b>`, `<a href>`): speak the text only.
    static func plain(_ body: String) -> String {
        var result = ""
        var inTag = false
        for character in body {
            if character == "<" { inTag = true } else if character == ">" { inTag = false } else if !inTag { result.append(character) }
        }
        return result.replacingEntities
    }
}

private extension String {
    var trimmingWhitespace: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }

    var replacingEntities: String {
        var text = self
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
            text = text.split(separator: entity, omittingEmptySubsequences: false).joined(separator: character)
        }
        return text
    }
}
