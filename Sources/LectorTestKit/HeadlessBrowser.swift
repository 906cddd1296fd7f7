import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Debian's chromium, headless, driven through Playwright (`browser-driver.py`, one JSON command
/// per line), inside a test session so the page reaches the session's read-along server.
///
///     let browser = try HeadlessBrowser(session: session)
///     try browser.open(url)
///     let chapter = try browser.waitFor("window.lectorView.view.chapter >= 0 && window.lectorView.view.chapter")
///     try browser.click("#play")
///
/// Needs `python3 -m pip install playwright` (scripts/install-deps --test does it); no
/// `playwright install`: the browser is the system's.
public final class HeadlessBrowser {
    private let process: ManagedProcess
    private let commands: Int32
    private var buffer = [UInt8]()
    private var closed = false

    public init(session: TestSession) throws {
        let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("browser-driver.py")
        let fifo = session.directory.appendingPathComponent("browser-\(UUID().uuidString.prefix(8)).in")
        guard mkfifo(fifo.path, 0o600) == 0 else { throw TestKitError.failed("mkfifo: \(String(cString: strerror(errno)))") }
        // Read-write: opening never blocks, and the driver's end sees EOF only when this closes.
        commands = Glibc.open(fifo.path, O_RDWR | O_CLOEXEC)
        guard commands >= 0 else { throw TestKitError.failed("open \(fifo.path): \(String(cString: strerror(errno)))") }
        do {
            process = try session.launch("python3", ["-u", driver.path], environment: session.environment,
                                         stdin: fifo, stdout: .pipe)
        } catch {
            Glibc.close(commands)
            throw error
        }
        session.lock.withLock { session.children.append(process) }
    }

    deinit {
        close()
    }

    /// Ends the browser (end of input), then the driver.
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(commands)
        if process.waitForExit(timeout: 10) == nil { process.terminate(grace: 1) }
        if process.pipeReadDescriptor >= 0 { Glibc.close(process.pipeReadDescriptor) }
    }

    // MARK: - Commands

    @discardableResult
    public func open(_ url: String) throws -> Any? { try send(["cmd": "open", "url": url], timeout: 30) }

    /// The JSON value of `js` evaluated in the page.
    @discardableResult
    public func eval(_ js: String) throws -> Any? { try send(["cmd": "eval", "js": js]) }

    /// Waits until `js` is truthy in the page; returns its value.
    @discardableResult
    public func waitFor(_ js: String, timeout: Double = 10) throws -> Any? {
        try send(["cmd": "waitFor", "js": js, "timeout": timeout], timeout: timeout + 10)
    }

    public func click(_ selector: String) throws { try send(["cmd": "click", "selector": selector]) }

    /// A key as Playwright names it: " ", "ArrowLeft", "Control+ArrowRight", "Enter".
    public func press(_ key: String) throws { try send(["cmd": "press", "key": key]) }

    public func focus(_ selector: String) throws { try send(["cmd": "focus", "selector": selector]) }

    /// Clicks the character at scalar `offset` of the shown chapter, as a listener clicks a word.
    public func clickText(offset: Int) throws { try send(["cmd": "clickText", "offset": offset]) }

    /// The mouse wheel, as a listener scrolls away.
    public func scroll(by pixels: Int) throws { try send(["cmd": "scroll", "y": pixels]) }

    /// The window's size in CSS pixels (1200×800 when the browser starts).
    public func setViewport(width: Int, height: Int) throws {
        try send(["cmd": "viewport", "width": width, "height": height])
    }

    public func screenshot(_ path: String) throws { try send(["cmd": "screenshot", "path": path]) }

    /// A request from the browser's context (its cookies), not the page: status, headers, body.
    public func request(_ url: String, method: String = "GET", headers: [String: String] = [:],
                        body: String? = nil) throws -> (status: Int, headers: [String: String], body: String) {
        var command: [String: Any] = ["cmd": "request", "url": url, "method": method, "headers": headers]
        if let body { command["data"] = body }
        guard let answer = try send(command) as? [String: Any], let status = answer["status"] as? Int else {
            throw TestKitError.failed("request \(url): no status")
        }
        return (status, answer["headers"] as? [String: String] ?? [:], answer["body"] as? String ?? "")
    }

    /// Console messages and page errors so far, for failure messages.
    public func console() -> [String] {
        (try? send(["cmd": "console"]) as? [String]) ?? []
    }

    @discardableResult
    private func send(_ command: [String: Any], timeout: TimeInterval = 20) throws -> Any? {
        var line = try JSONSerialization.data(withJSONObject: command)
        line.append(UInt8(ascii: "\n"))
        let written = line.withUnsafeBytes { Glibc.write(commands, $0.baseAddress, $0.count) }
        guard written == line.count else { throw TestKitError.failed("browser driver gone: \(process.output)") }
        let answer = try readLine(timeout: timeout)
        guard let object = try JSONSerialization.jsonObject(with: answer, options: [.fragmentsAllowed]) as? [String: Any] else {
            throw TestKitError.failed("browser driver said: \(String(decoding: answer, as: UTF8.self))")
        }
        guard object["ok"] as? Bool == true else {
            throw TestKitError.failed("browser: \(object["error"] ?? "failed") (command \(command["cmd"] ?? ""))")
        }
        let value = object["value"]
        return value is NSNull ? nil : value
    }

    private func readLine(timeout: TimeInterval) throws -> Data {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Data(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw TestKitError.failed("the browser did not answer within \(Int(timeout)) s: \(process.output)") }
            var descriptor = pollfd(fd: process.pipeReadDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(min(left, 1) * 1000)) >= 0 else { continue }
            guard descriptor.revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = Glibc.read(process.pipeReadDescriptor, &chunk, chunk.count)
            guard count > 0 else {
                throw TestKitError.failed("the browser driver exited (is Playwright installed? scripts/install-deps --test): \(process.output)")
            }
            buffer.append(contentsOf: chunk[..<count])
        }
    }
}
