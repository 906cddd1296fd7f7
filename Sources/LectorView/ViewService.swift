import Foundation
import Glibc
import LectorBus
import LectorInterface
import LectorLoop
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The read-along server process: composes the loop, the bus, the link to the daemon and the HTTP
/// server, and takes them down in reverse order.
///
/// Threads: the sd-event loop on the main thread owns the bus and the link (`@MainActor`, as in
/// the daemon); Hummingbird serves on one NIO thread and reaches the link by hopping to the main
/// actor. Idle (no page open, nothing heard) nothing wakes: no timer runs but the exit timer,
/// armed once when the last page closes.
///
///     let service = try ViewService(options: .init())
///     let status = try service.run { url in print(url) }   // until idle, SIGTERM or SIGINT
@MainActor
public final class ViewService {
    public struct Options: Sendable {
        /// Exit this long after the last page closed (or after start, if no page ever opens).
        public var idleExitSeconds: Double = 300
        public init() {}
    }

    public enum StartError: Error, CustomStringConvertible {
        case noPage
        public var description: String {
            "the read-along page's files are missing (set LECTOR_VIEW_ASSETS to the Page folder)"
        }
    }

    private let options: Options
    private let loop: LectorLoop.EventLoop
    private let bus: Bus
    private let events: ViewEvents
    private let link: NarratorLink
    private let group: MultiThreadedEventLoopGroup
    private let server: ViewServer
    private let token = ViewGate.makeToken()
    private var serviceGroup: ServiceGroup?
    private var serverDone: Task<Void, Never>?
    private var idleTimer: EventSource?
    private var signalSources: [EventSource] = []
    private var object: BusObject?
    private var onReady: ((String) -> Void)?
    public private(set) var url: String?
    /// Another server of this session took the name first: this one served nothing and left.
    public private(set) var lostToAnotherServer = false

    public init(options: Options) throws {
        guard let assets = PageAssets.locate() else { throw StartError.noPage }
        // Tasks run on NIO's loop threads (GlobalExecutor says why); before any task exists.
        GlobalExecutor.runTasksOnNIO()
        self.options = options
        LectorLoop.EventLoop.blockSignals([SIGTERM, SIGINT])
        loop = try LectorLoop.EventLoop()
        bus = try Bus.session()
        try bus.attach(to: loop)
        events = ViewEvents(countChanged: { count in LoopInbox.post { ViewService.current?.pagesChanged(count) } })
        link = NarratorLink(bus: bus, events: events)
        group = MultiThreadedEventLoopGroup.singleton
        var logger = Logger(label: "lector-view")
        logger.logLevel = .warning
        server = try ViewServer(token: token, events: events, link: link, assets: assets, group: group, logger: logger,
                                ready: { port in LoopInbox.post { ViewService.current?.serving(port: port) } })
        serviceGroup = ServiceGroup(configuration: .init(services: [server], logger: logger))
    }

    /// The one service of this process, for callbacks from other threads (set while `run` runs).
    private static var current: ViewService?

    /// Serves until idle, SIGTERM or SIGINT; `ready` gets the page's URL (with its token) once the
    /// port is bound. Returns the exit status.
    public func run(ready: @escaping (String) -> Void) throws -> Int32 {
        Self.current = self
        defer { teardown() }
        onReady = ready
        for signal in [SIGTERM, SIGINT] {
            signalSources.append(try loop.onSignal(signal) { [weak self] in self?.requestExit() })
        }
        idleTimer = try loop.timer { [weak self] in self?.requestExit() }
        try link.start()
        let running = serviceGroup
        serverDone = Task.detached {
            do { try await running?.run() } catch {}
            LoopInbox.post { ViewService.current?.serverEnded() }
        }
        return try loop.run()
    }

    /// Bound: publish the address, then take the name, so whoever finds the name finds the
    /// address too. Another server that took the name first wins; this one leaves.
    private func serving(port: Int) {
        let url = "http://127.0.0.1:\(port)/?token=\(token)"
        self.url = url
        let published = BusObject(path: ViewNames.path, interface: ViewNames.interface, target: self, members: [
            .property("Url", "s", .constant) { service, reply in try reply.append(service.url ?? "") },
        ])
        do {
            try bus.add(published)
            object = published
            try bus.requestName(ViewNames.service)
        } catch {
            lostToAnotherServer = true
            requestExit()
            return
        }
        pagesChanged(events.pageCount)
        onReady?(url)
        onReady = nil
    }

    private func pagesChanged(_ count: Int) {
        link.pagesChanged(count)
        if count == 0 {
            idleTimer?.schedule(after: UInt64(options.idleExitSeconds * 1e6))
        } else {
            idleTimer?.cancel()
        }
    }

    private var exiting = false

    /// Ends the pages' streams, then the server (gracefully), then the loop.
    private func requestExit() {
        guard !exiting else { return }
        exiting = true
        events.closeAll()
        let group = serviceGroup
        Task.detached { await group?.triggerGracefulShutdown() }
    }

    private func serverEnded() {
        exiting = true
        loop.exit(0)
    }

    /// Reverse order of start: the HTTP server's threads, the bus (matches, name), the loop's sources.
    private func teardown() {
        events.closeAll()
        // The singleton group (the tasks' executor too) lives as long as the process.
        object?.close()
        link.pagesChanged(0)
        bus.close()
        idleTimer?.close()
        for source in signalSources { source.close() }
        signalSources = []
        loop.close()
        Self.current = nil
    }
}
