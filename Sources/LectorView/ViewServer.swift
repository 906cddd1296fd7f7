import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import LectorBus
import LectorInterface

/// The read-along page over HTTP on 127.0.0.1, on a port the system picks.
///
/// Routes (each behind `ViewGate`: own Host/Origin, token from the URL then the cookie):
/// `/` the page (`/?token=…` sets the cookie and redirects to `/`), `/app.js` `/app.css`,
/// `/events` (Server-Sent Events: `state`, `range`), `/api/state`, `/api/chapters`,
/// `/api/chapter/N` (markup), `/resource/ID` (an image of the open book, by manifest id),
/// `/cover`, and `POST /api/control`. The page may run only its own script (Content-Security-Policy).
///
/// Hummingbird's `Application` is not used: it runs a date-header timer every second, and an
/// idle view server must not wake at all. The router and the HTTP/1 server are Hummingbird's.
public final class ViewServer: Service, Sendable {
    public let gate: ViewGate
    private let server: any Service
    private let boundPort: PortBox

    /// `link` answers for the daemon; `assets` is the page's folder.
    public init(token: String, port: Int = 0, events: ViewEvents, link: NarratorLink, assets: PageAssets,
                group: any EventLoopGroup, logger: Logger, ready: @escaping @Sendable (Int) -> Void) throws {
        let boundPort = PortBox()
        self.boundPort = boundPort
        gate = ViewGate(port: port, token: token)
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: GateMiddleware(token: token, port: boundPort))
        Self.addRoutes(to: router, events: events, link: link, assets: assets)
        let responder = router.buildResponder()
        server = try HTTPServerBuilder.http1().buildServer(
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: nil, backlog: 16),
            eventLoopGroup: group, logger: logger,
            responder: { request, writer, channel in
                let context = BasicRequestContext(source: .init(channel: channel, logger: logger))
                var response: Response
                do {
                    response = try await responder.respond(to: request, context: context)
                } catch {
                    response = Response(status: .internalServerError)
                }
                Self.secure(&response.headers)
                try await writer.write(response: response.head, body: response.body)
            },
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                boundPort.set(port)
                ready(port)
            })
    }

    public var port: Int { boundPort.get() }

    /// Serves until the task is cancelled (the view service cancels it to shut down).
    public func run() async throws {
        try await server.run()
    }

    /// Headers every answer carries: only the page's own script, styles and images; no framing,
    /// no token in a Referer, nothing cached (the token is in the first URL).
    static func secure(_ headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[.cacheControl] = "no-store"
    }

    private static func addRoutes(to router: Router<BasicRequestContext>, events: ViewEvents, link: NarratorLink,
                                  assets: PageAssets) {
        router.get("/") { request, _ -> Response in
            if request.uri.queryParameters["token"] != nil {
                // The token leaves the address bar and the history; the cookie carries it from now on.
                return Response(status: .seeOther, headers: [.location: "/"])
            }
            return try assets.response("index.html")
        }
        router.get("/app.js") { _, _ in try assets.response("app.js") }
        router.get("/app.css") { _, _ in try assets.response("app.css") }
        router.get("/icon.svg") { _, _ in try assets.response("icon.svg") }

        router.get("/events") { request, _ -> Response in
            let (id, stream) = events.subscribe()
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                body: .init { writer in
                    try await request.body.consumeWithInboundCloseHandler { _ in
                        for await frame in stream { try await writer.write(frame) }
                    } onInboundClosed: {
                        events.unsubscribe(id)
                    }
                    events.unsubscribe(id)
                    try await writer.finish(nil)
                })
        }

        router.get("/api/state") { _, _ -> Response in
            json(try JSONEncoder().encode(await link.currentSnapshot()))
        }
        router.get("/api/chapters") { _, _ -> Response in
            do {
                return json(try JSONEncoder().encode(try await link.chapters()))
            } catch {
                return failure(error)
            }
        }
        router.get("/api/chapter/:number") { _, context -> Response in
            guard let number = context.parameters.get("number", as: Int.self), number >= 0 else {
                return Response(status: .badRequest)
            }
            do {
                return json(try JSONEncoder().encode(try await link.chapterMarkup(number)))
            } catch {
                return failure(error)
            }
        }
        router.get("/resource/:id") { _, context -> Response in
            guard let id = context.parameters.get("id"), !id.isEmpty, id.utf8.count <= 512 else {
                return Response(status: .badRequest)
            }
            do {
                let (mediaType, data) = try await link.resource(id)
                guard PageAssets.imageTypes.contains(mediaType) else { return Response(status: .unsupportedMediaType) }
                return Response(status: .ok, headers: [.contentType: mediaType],
                                body: .init(byteBuffer: ByteBuffer(bytes: data)))
            } catch {
                return failure(error)
            }
        }
        router.get("/cover") { _, _ -> Response in
            _ = await link.currentSnapshot()   // the book open now, and its cover
            guard let file = await link.coverFile, let data = try? Data(contentsOf: file),
                  let mediaType = PageAssets.imageType(of: data) else { return Response(status: .notFound) }
            return Response(status: .ok, headers: [.contentType: mediaType],
                            body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        router.post("/api/control") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 4096)
            guard let action = ViewAction.parse(Array(buffer: body)) else {
                return Response(status: .badRequest, headers: [.contentType: "application/json"],
                                body: .init(byteBuffer: ByteBuffer(string: #"{"error":"not a control this page sends: an unknown action, or a value missing or out of range"}"#)))
            }
            do {
                try await link.perform(action)
                return Response(status: .noContent)
            } catch {
                return failure(error)
            }
        }
    }

    private static func json(_ data: Data) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The daemon's answer to a page: its error name and message, with `status(forError:)`.
    private static func failure(_ error: any Error) -> Response {
        let name = (error as? BusCallError)?.name ?? "Failed"
        let message = (error as? BusCallError)?.message ?? "\(error)"
        let status = status(forError: name)
        let body = (try? JSONEncoder().encode(["error": status == .serviceUnavailable ? "Lector is not running" : message, "name": name]))
            ?? Data()
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The HTTP status for a D-Bus error: 503 when the daemon is not running; a 4xx when the
    /// request was at fault (InvalidArgument, UnknownVoice, UnknownLanguage: 400; NotFound: 404;
    /// NoBook: 409); 502 for the daemon's other errors.
    static func status(forError name: String) -> HTTPResponse.Status {
        if name.hasSuffix("ServiceUnknown") || name.hasSuffix("NameHasNoOwner") || name.hasSuffix("NoReply")
            || name.hasSuffix("Disconnected") { return .serviceUnavailable }
        guard name.hasPrefix(LectorError.namePrefix),
              let kind = LectorError.Kind(rawValue: String(name.dropFirst(LectorError.namePrefix.count))) else { return .badGateway }
        switch kind {
        case .invalidArgument, .unknownVoice, .unknownLanguage: return .badRequest
        case .notFound: return .notFound
        case .noBook: return .conflict
        default: return .badGateway
        }
    }
}

/// Refuses every request `ViewGate` does not allow (403, nothing else said); a first visit with
/// the URL's token also gets the cookie.
struct GateMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String
    let port: PortBox

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let gate = ViewGate(port: port.get(), token: token)
        let verdict = gate.check(host: request.head.authority, origin: request.headers[.origin],
                                 cookie: request.headers[.cookie], queryToken: request.uri.queryParameters["token"].map(String.init))
        switch verdict {
        case .refused(let reason):
            context.logger.notice("refused \(request.method) \(request.uri.path): \(reason)")
            return Response(status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: "Forbidden\n")))
        case .allowed:
            return try await next(request, context)
        case .allowedByURLToken:
            var response = try await next(request, context)
            response.headers[.setCookie] = gate.cookie
            return response
        }
    }
}

/// The port, known once the socket is bound (the system picks it).
final class PortBox: @unchecked Sendable {
    private let lock = NSLock()
    private var port = 0
    func set(_ value: Int) { lock.withLock { port = value } }
    func get() -> Int { lock.withLock { port } }
}
